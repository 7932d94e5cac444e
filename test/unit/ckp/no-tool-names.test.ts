/**
 * Honest semantics: what a protocol client gets follows from the manifest (policy, sandbox,
 * timeouts, limits), never from which tool it called. No code on the way from a protocol
 * request to a tool's execution names a tool.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { memoryNote } from '../../../src/main/core/memory/note-tool.js';
import { BUILTIN_TOOLS } from '../../../src/main/core/tools/builtins/index.js';

const root = path.resolve(import.meta.dirname, '../../..');
/** The protocol surfaces and everything a call passes through before the tool runs. */
const SCANNED = [
  'src/main/core/ckp',
  'src/main/core/mcp',
  'src/main/core/ckp-server',
  'src/main/core/mcp-server',
  'src/main/core/runtime',
  'src/main/core/policy',
  'src/main/core/agent',
  'src/main/cli/commands/serve.ts',
  'src/main/cli/commands/mcp.ts',
];

async function files(entry: string): Promise<string[]> {
  const full = path.join(root, entry);
  try {
    const found = await readdir(full, { recursive: true });
    return found.filter((name) => name.endsWith('.ts')).map((name) => path.join(full, name));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return [full];
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

it('no tool name appears as a string in the protocol path', async () => {
  const names = [...BUILTIN_TOOLS, memoryNote].flatMap((tool) => [
    tool.name,
    tool.name.replaceAll('/', '__'),
  ]);
  const scanned = (await Promise.all(SCANNED.map(files))).flat();
  expect(scanned.length).toBeGreaterThan(20);
  const hits: string[] = [];
  for (const file of scanned) {
    const text = await readFile(file, 'utf8');
    for (const name of names) {
      if (new RegExp(`['"\`]${name.replace('/', '\\/')}['"\`]`).test(text))
        hits.push(`${path.relative(root, file)}: ${name}`);
    }
  }
  expect(hits).toEqual([]);
});
