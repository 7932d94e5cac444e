/** Which files memory indexes, and reading one safely: inside its root, text, within a size. */
import { realpathSync } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { ConfinementError, readInside } from '../workspace-fs/index.js';
import { MemoryError, type MemoryErrorCode } from './errors.js';

const INDEXED_EXTENSIONS = new Set(['.md', '.markdown', '.txt']);

/**
 * Reads a text file under `root` through the workspace guard, refusing what memory cannot use
 * before reading all of it.
 */
export async function readIndexable(
  root: string,
  file: string,
  maxBytes: number,
): Promise<{ text: string; mtime: Date; source: string }> {
  const size = (await lstat(file).catch(() => undefined))?.size ?? 0;
  if (size > maxBytes)
    throw new MemoryError(
      'too_large',
      `${file} is ${size} bytes; memory indexes files up to ${maxBytes} bytes`,
    );
  const read = await readInside(root, path.relative(root, file), { maxBytes }).catch(
    (error: unknown) => {
      if (!(error instanceof ConfinementError)) throw error;
      throw new MemoryError(MEMORY_CODES[error.code] ?? 'refused', `${file}: ${error.message}`, {
        cause: error,
      });
    },
  );
  if (read.bytes.includes(0))
    throw new MemoryError('binary', `${file} is a binary file (it has NUL bytes)`);
  try {
    return {
      text: new TextDecoder('utf-8', { fatal: true }).decode(read.bytes),
      mtime: read.stats.mtime,
      source: read.file,
    };
  } catch {
    throw new MemoryError('binary', `${file} is not UTF-8 text`);
  }
}

const MEMORY_CODES: Partial<Record<ConfinementError['code'], MemoryErrorCode>> = {
  not_found: 'not_found',
  too_large: 'too_large',
  not_file: 'bad_input',
  io: 'unreadable',
};

/** The indexable files under `dir`, sorted; hidden files and folders are left out. */
export async function textFilesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && INDEXED_EXTENSIONS.has(path.extname(e.name).toLowerCase()))
    .map((e) => path.join(e.parentPath, e.name))
    .filter(
      (file) =>
        !path
          .relative(dir, file)
          .split(path.sep)
          .some((p) => p.startsWith('.')),
    )
    .sort();
}

/** The real path of `file`, or `file` itself when it cannot be resolved. */
export function realOrSelf(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}
