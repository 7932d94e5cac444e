/**
 * Pincer's own tools' argument schemas are compiled without the meta-schema check (it costs the
 * first tool call ~30 ms); this is that check, for every tool Pincer declares as builtin. A
 * foreign schema (manifest, MCP server, tool module) is still checked when it is compiled.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { type RemoteAgentToolDeps, remoteAgentTool } from '../../../src/main/core/a2a/tools.js';
import { Delegation, type DelegationDeps } from '../../../src/main/core/agent/delegation.js';
import { memoryNote } from '../../../src/main/core/memory/note-tool.js';
import { BUILTIN_TOOLS } from '../../../src/main/core/tools/builtins/index.js';
import { ToolRegistry } from '../../../src/main/core/tools/registry.js';
import type { Tool } from '../../../src/main/core/tools/types.js';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const own: Tool[] = [
  ...BUILTIN_TOOLS,
  memoryNote,
  new Delegation({} as unknown as DelegationDeps).tool,
  remoteAgentTool(
    'helper',
    {
      url: 'http://127.0.0.1:9/a2a',
      card: { name: 'Helper', description: '', version: '', skills: [] },
    },
    { secrets: {} as RemoteAgentToolDeps['secrets'], screen: (text) => text },
  ),
];

/** Source files that declare a tool with `source: 'builtin'`. */
async function declaringFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = path.join(entry.parentPath, entry.name);
    if (/source: 'builtin'(?: as const)?,/.test(await readFile(file, 'utf8')))
      found.push(path.relative(repoRoot, file));
  }
  return found.sort();
}

describe("Pincer's own tool schemas", () => {
  it('are all here: every file declaring a builtin tool is one this test reads', async () => {
    expect(await declaringFiles(path.join(repoRoot, 'src'))).toEqual([
      'src/main/core/a2a/tools.ts',
      'src/main/core/agent/delegation.ts',
      'src/main/core/memory/note-tool.ts',
      'src/main/core/tools/builtins/exec.ts',
      'src/main/core/tools/builtins/fs.ts',
      'src/main/core/tools/builtins/memory.ts',
      'src/main/core/tools/builtins/net.ts',
    ]);
    expect(own.every((tool) => tool.source === 'builtin')).toBe(true);
  });

  it('are valid JSON Schemas (the meta-schema check their compilation skips)', () => {
    const ajv = new Ajv({ strict: false });
    for (const tool of own) {
      expect(ajv.validateSchema(tool.inputSchema), `${tool.name}: ${ajv.errorsText()}`).toBe(true);
    }
  });

  it('a foreign schema is still checked against the meta-schema, an own one is not', async () => {
    // Only the meta-schema minds a description that is not a string.
    const broken = { type: 'object', properties: { n: { type: 'integer', description: 5 } } };
    const registry = new ToolRegistry();
    const base = { ...BUILTIN_TOOLS[0], inputSchema: broken } as Tool;
    registry.register({ ...base, name: 'test/foreign', source: 'manifest' });
    registry.register({ ...base, name: 'test/own', source: 'builtin' });
    const foreign = await registry.check({ id: 'a', name: 'test/foreign', input: { n: 1 } }, [
      'test/foreign',
    ]);
    expect('error' in foreign && foreign.error.content).toContain("the tool's schema does not");
    const ownCall = await registry.check({ id: 'b', name: 'test/own', input: { n: 1 } }, [
      'test/own',
    ]);
    expect('error' in ownCall).toBe(false);
  });
});
