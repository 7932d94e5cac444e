/**
 * File tools, confined to the workspace (and, under the sandbox, its granted mounts): real-path
 * checks against links, hard-linked files refused, denied paths refused, symlinks never followed
 * while walking folders.
 */
import { randomUUID } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { confine, refuseHardLinks, shown } from '../../workspace-fs/index.js';
import { type Tool, ToolError } from '../types.js';
import { relativeGlob } from './path-pattern.js';

/** The globber loads with the first recursive listing or search, not with every process. */
const globber = async () => (await import('tinyglobby')).glob;

const BASE = {
  source: 'builtin' as const,
  category: 'filesystem',
  timeoutMs: 30_000,
  maxOutputBytes: 256 * 1024,
};
const SKIP_DIRS = ['**/.git/**', '**/node_modules/**'];

async function readText(file: string): Promise<string> {
  const bytes = await readFile(file).catch((error: NodeJS.ErrnoException) => {
    throw new ToolError(
      error.code === 'ENOENT'
        ? 'no such file'
        : error.code === 'EISDIR'
          ? 'that is a directory'
          : error.message,
    );
  });
  if (bytes.includes(0)) throw new ToolError('binary file: not shown');
  return bytes.toString('utf8');
}

async function writeAtomic(file: string, content: string): Promise<void> {
  const temp = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${randomUUID().slice(0, 8)}.tmp`,
  );
  await writeFile(temp, content);
  await rename(temp, file);
}

export const fsRead: Tool = {
  ...BASE,
  name: 'fs/read',
  description:
    'Read a text file in the workspace. offset is the first line (1-based), limit the number of lines.',
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'Path relative to the workspace' },
      offset: { type: 'integer', minimum: 1 },
      limit: { type: 'integer', minimum: 1, maximum: 10000 },
    },
    required: ['path'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, idempotentHint: true },
  tier: 'safe',
  async run(input, context) {
    const file = await confine(context.workspace, input.path, 'path', {
      scope: context.filesystem,
    });
    await refuseHardLinks(file, input.path as string);
    const lines = (await readText(file)).split('\n');
    const offset = (input.offset as number | undefined) ?? 1;
    const limit = (input.limit as number | undefined) ?? 2000;
    const slice = lines.slice(offset - 1, offset - 1 + limit);
    const end = offset - 1 + slice.length;
    const note =
      offset > 1 || end < lines.length ? `\n[lines ${offset}-${end} of ${lines.length}]` : '';
    return { content: slice.join('\n') + note };
  },
};

export const fsWrite: Tool = {
  ...BASE,
  name: 'fs/write',
  description: 'Create or overwrite a text file in the workspace (parent folders are created).',
  inputSchema: {
    type: 'object',
    properties: { path: { type: 'string' }, content: { type: 'string' } },
    required: ['path', 'content'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  tier: 'guarded',
  async run(input, context) {
    const file = await confine(context.workspace, input.path, 'path', {
      access: 'write',
      scope: context.filesystem,
    });
    await refuseHardLinks(file, input.path as string);
    await mkdir(path.dirname(file), { recursive: true });
    const content = input.content as string;
    await writeAtomic(file, content);
    return {
      content: `wrote ${Buffer.byteLength(content)} bytes to ${shown(await confineRoot(context.workspace), file)}`,
    };
  },
};

export const fsEdit: Tool = {
  ...BASE,
  name: 'fs/edit',
  description:
    'Replace exact text in a file. old_text must occur exactly once unless replace_all is true.',
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string' },
      old_text: { type: 'string', minLength: 1 },
      new_text: { type: 'string' },
      replace_all: { type: 'boolean' },
    },
    required: ['path', 'old_text', 'new_text'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: false, destructiveHint: false },
  tier: 'guarded',
  async run(input, context) {
    const file = await confine(context.workspace, input.path, 'path', {
      access: 'write',
      scope: context.filesystem,
    });
    await refuseHardLinks(file, input.path as string);
    const text = await readText(file);
    const oldText = input.old_text as string;
    const count = text.split(oldText).length - 1;
    if (count === 0) throw new ToolError('old_text was not found in the file');
    if (count > 1 && input.replace_all !== true) {
      throw new ToolError(
        `old_text occurs ${count} times; include more context to make it unique, or set replace_all`,
      );
    }
    await writeAtomic(file, text.split(oldText).join(input.new_text as string));
    return { content: `replaced ${count} occurrence${count === 1 ? '' : 's'}` };
  },
};

export const fsList: Tool = {
  ...BASE,
  name: 'fs/list',
  description: 'List a folder of the workspace (folders end with /). recursive walks subfolders.',
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string' },
      recursive: { type: 'boolean' },
      limit: { type: 'integer', minimum: 1, maximum: 5000 },
    },
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, idempotentHint: true },
  tier: 'safe',
  async run(input, context) {
    const dir = await confine(context.workspace, input.path ?? '.', 'path', {
      scope: context.filesystem,
    });
    const limit = (input.limit as number | undefined) ?? 500;
    let entries: string[];
    if (input.recursive === true) {
      entries = await (await globber())('**/*', {
        cwd: dir,
        onlyFiles: false,
        ignore: SKIP_DIRS,
        dot: true,
        followSymbolicLinks: false,
      });
    } else {
      const dirents = await readdir(dir, { withFileTypes: true }).catch(
        (error: NodeJS.ErrnoException) => {
          throw new ToolError(error.code === 'ENOENT' ? 'no such folder' : error.message);
        },
      );
      entries = dirents.map((d) => (d.isDirectory() ? `${d.name}/` : d.name));
    }
    entries.sort();
    const shownEntries = entries.slice(0, limit);
    const more = entries.length > limit ? `\n[${entries.length - limit} more not shown]` : '';
    return { content: shownEntries.join('\n') + more };
  },
};

export const fsSearch: Tool = {
  ...BASE,
  name: 'fs/search',
  description: 'Search files of the workspace for a regular expression; prints file:line: text.',
  inputSchema: {
    type: 'object',
    properties: {
      pattern: { type: 'string', minLength: 1 },
      path: { type: 'string' },
      glob: {
        type: 'string',
        description: 'Only files matching this glob, relative to path, e.g. **/*.ts',
      },
      ignore_case: { type: 'boolean' },
      max_results: { type: 'integer', minimum: 1, maximum: 1000 },
    },
    required: ['pattern'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, idempotentHint: true },
  tier: 'safe',
  async run(input, context) {
    const dir = await confine(context.workspace, input.path ?? '.', 'path', {
      scope: context.filesystem,
    });
    let regex: RegExp;
    try {
      regex = new RegExp(input.pattern as string, input.ignore_case ? 'i' : '');
    } catch (error) {
      throw new ToolError(`pattern is not a valid regular expression: ${(error as Error).message}`);
    }
    const max = (input.max_results as number | undefined) ?? 100;
    const files = await (await globber())(relativeGlob(input.glob ?? '**/*'), {
      cwd: dir,
      ignore: SKIP_DIRS,
      dot: false,
      followSymbolicLinks: false,
    });
    const hits: string[] = [];
    for (const relative of files.sort()) {
      const file = path.join(dir, relative);
      // Every match through the same guard as a path argument, and no link followed anywhere
      // on its way (a pattern can name a symlinked folder the walk itself would not enter).
      const real = await confine(context.workspace, file, 'path', {
        scope: context.filesystem,
      }).catch(() => undefined);
      if (real !== file) continue;
      // Only plain files with one name: a hard link may alias a file outside the workspace.
      const info = await lstat(file).catch(() => undefined);
      if (!info?.isFile() || info.nlink > 1 || info.size > 1024 * 1024) continue;
      const bytes = await readFile(file);
      if (bytes.includes(0)) continue;
      const lines = bytes.toString('utf8').split('\n');
      for (const [index, line] of lines.entries()) {
        if (context.signal.aborted) throw new ToolError('cancelled');
        if (!regex.test(line)) continue;
        hits.push(
          `${relative}:${index + 1}: ${line.length > 300 ? `${line.slice(0, 300)}…` : line}`,
        );
        if (hits.length >= max)
          return { content: `${hits.join('\n')}\n[stopped at ${max} results]` };
      }
    }
    return { content: hits.length ? hits.join('\n') : 'no matches' };
  },
};

async function confineRoot(workspace: string): Promise<string> {
  return confine(workspace, '.');
}
