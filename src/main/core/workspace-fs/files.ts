/**
 * Host-side reads and writes of workspace content (identity files, threads, memory files,
 * skills, files a channel received): the main process touches a file under a root only through these. The last path
 * component is opened with O_NOFOLLOW (a planted symlink, dangling or not, is never followed),
 * new files are created with O_EXCL, and the open file is checked before a byte moves: a regular
 * file, one name only (no hard link to a file elsewhere), and really inside the root (on Linux
 * the kernel's own path of the descriptor; elsewhere its parent's real path and inode).
 */
import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { hardLinked, inside } from './confine.js';
import { ConfinementError } from './errors.js';

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
// Opening a FIFO for reading would wait for a writer: with O_NONBLOCK it opens, then fstat refuses it.
const NONBLOCK = constants.O_NONBLOCK ?? 0;
const PROC_FD = process.platform === 'linux' ? '/proc/self/fd' : undefined;

interface Located {
  realRoot: string;
  /** Absolute, under realRoot. */
  target: string;
  /** As the message shows it: relative to the root. */
  shown: string;
}

function realRootOf(root: string): Promise<string> {
  return realpath(root).catch((error: unknown) => {
    throw new ConfinementError('not_found', `${root} does not exist`, { cause: error });
  });
}

async function locate(root: string, relative: string): Promise<Located> {
  return locateUnder(root, await realRootOf(root), relative);
}

function locateUnder(root: string, realRoot: string, relative: string): Located {
  if (relative.includes('\u0000'))
    throw new ConfinementError('invalid', `"${relative}" contains a null byte`);
  const target = path.resolve(realRoot, relative);
  const shown = path.relative(realRoot, target) || '.';
  if (!inside(realRoot, target) || target === realRoot)
    throw new ConfinementError('outside', `"${relative}" is outside ${root}`);
  return { realRoot, target, shown };
}

function openError(error: unknown, shown: string): ConfinementError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new ConfinementError('not_found', `"${shown}" does not exist`);
  if (code === 'ELOOP' || code === 'EMLINK')
    return new ConfinementError(
      'link',
      `"${shown}" is a symbolic link; refused (a link can lead outside the workspace)`,
    );
  if (code === 'EISDIR' || code === 'ENXIO' || code === 'ENOTDIR')
    return new ConfinementError('not_file', `"${shown}" is not a regular file`);
  return new ConfinementError('io', `cannot open "${shown}": ${(error as Error).message}`, {
    cause: error,
  });
}

/**
 * Checks the open file itself, so a link swapped in after the path checks is still caught;
 * returns its real path.
 */
async function verify(handle: FileHandle, where: Located): Promise<{ info: Stats; real: string }> {
  const info = await handle.stat();
  if (!info.isFile())
    throw new ConfinementError('not_file', `"${where.shown}" is not a regular file`);
  const real = await openedPath(handle, info, where);
  if (!real || !inside(where.realRoot, real))
    throw new ConfinementError(
      'link',
      `"${where.shown}" leads outside the workspace through a link`,
    );
  if (info.nlink > 1) throw hardLinked(where.shown, info.nlink);
  return { info, real };
}

/** The real path of the open file: the kernel's on Linux, else its parent's plus the same inode. */
async function openedPath(
  handle: FileHandle,
  info: Stats,
  where: Located,
): Promise<string | undefined> {
  if (PROC_FD) return readlink(`${PROC_FD}/${handle.fd}`);
  const parent = await realpath(path.dirname(where.target)).catch(() => undefined);
  if (!parent) return undefined;
  const real = path.join(parent, path.basename(where.target));
  const named = await lstat(real).catch(() => undefined);
  return named?.ino === info.ino && named.dev === info.dev ? real : undefined;
}

async function readBounded(
  handle: FileHandle,
  size: number,
  maxBytes: number,
  shown: string,
): Promise<Buffer> {
  const tooLarge = (bytes: number) =>
    new ConfinementError('too_large', `"${shown}" is ${bytes} bytes; the limit is ${maxBytes}`);
  if (size > maxBytes) throw tooLarge(size);
  // One byte more than allowed tells a file that grew since fstat from one that did not.
  const buffer = Buffer.alloc(Math.min(maxBytes + 1, Math.max(size, 64 * 1024)));
  let length = 0;
  while (length < buffer.length) {
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
    if (bytesRead === 0) break;
    length += bytesRead;
  }
  if (length > maxBytes) throw tooLarge(length);
  return buffer.subarray(0, length);
}

export interface ReadInsideOptions {
  /** Larger files are refused without being read (default 10 MiB). */
  maxBytes?: number;
}

export const DEFAULT_MAX_READ_BYTES = 10 * 1024 * 1024;

/** Reads `relative` under `root`, refusing links, hard links and anything not a regular file. */
export async function readInside(
  root: string,
  relative: string,
  options: ReadInsideOptions = {},
): Promise<{ bytes: Buffer /** Its real path. */; file: string; stats: Stats }> {
  return readLocated(await locate(root, relative), options);
}

async function readLocated(
  where: Located,
  options: ReadInsideOptions,
): Promise<{ bytes: Buffer; file: string; stats: Stats }> {
  const handle = await open(where.target, constants.O_RDONLY | NOFOLLOW | NONBLOCK).catch(
    (error: unknown) => {
      throw openError(error, where.shown);
    },
  );
  try {
    const { info, real } = await verify(handle, where);
    const maxBytes = options.maxBytes ?? DEFAULT_MAX_READ_BYTES;
    return {
      bytes: await readBounded(handle, info.size, maxBytes, where.shown),
      file: real,
      stats: info,
    };
  } finally {
    await handle.close();
  }
}

/**
 * Creates the folders of `relative` under the root one at a time, refusing a folder on the way
 * that is a link leading outside (or a dangling one): `mkdir -p` would create through it.
 */
async function mkdirInside(where: Located): Promise<void> {
  const parts = path.relative(where.realRoot, path.dirname(where.target)).split(path.sep);
  let current = where.realRoot;
  for (const part of parts.filter(Boolean)) {
    current = path.join(current, part);
    let info = await lstat(current).catch(() => undefined);
    if (!info) {
      await mkdir(current).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw openError(error, path.relative(where.realRoot, current));
      });
      info = await lstat(current);
    }
    const shown = path.relative(where.realRoot, current);
    if (info.isSymbolicLink()) {
      const real = await realpath(current).catch(() => undefined);
      if (!real || !inside(where.realRoot, real))
        throw new ConfinementError(
          'link',
          `"${shown}" leads outside the workspace through a link; refused`,
        );
      info = await lstat(real);
    }
    if (!info.isDirectory()) throw new ConfinementError('not_file', `"${shown}" is not a folder`);
  }
}

/**
 * Appends `text` to `relative` under `root`, creating it (and its folders) when absent; a new
 * file starts with `head`. Never follows a link, never writes to a hard-linked file.
 */
export async function appendInside(
  root: string,
  relative: string,
  text: string,
  options: { head?: string } = {},
): Promise<{ /** Its real path. */ file: string; created: boolean }> {
  const where = await locate(root, relative);
  await mkdirInside(where);
  const flags = constants.O_WRONLY | constants.O_APPEND | NOFOLLOW;
  let created = true;
  let handle = await open(where.target, flags | constants.O_CREAT | constants.O_EXCL, 0o666).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'EEXIST') return undefined;
      throw openError(error, where.shown);
    },
  );
  if (!handle) {
    created = false;
    handle = await open(where.target, flags | NONBLOCK).catch((error: unknown) => {
      throw openError(error, where.shown);
    });
  }
  try {
    const { real } = await verify(handle, where);
    await handle.write(created && options.head ? `${options.head}${text}` : text);
    return { file: real, created };
  } finally {
    await handle.close();
  }
}

/**
 * Creates `relative` under `root` (and its folders) holding `bytes`; a file already there, a link
 * included, is never touched: ConfinementError 'exists'.
 */
export async function createInside(
  root: string,
  relative: string,
  bytes: Uint8Array,
): Promise<{ /** Its real path. */ file: string }> {
  const where = await locate(root, relative);
  await mkdirInside(where);
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW;
  const handle = await open(where.target, flags, 0o666).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EEXIST')
      throw new ConfinementError('exists', `"${where.shown}" already exists`);
    throw openError(error, where.shown);
  });
  try {
    const { real } = await verify(handle, where);
    await handle.writeFile(bytes);
    return { file: real };
  } finally {
    await handle.close();
  }
}

/**
 * A text file under the root that may be absent: its text (UTF-8, lenient), undefined when it is
 * not there, or the refusal when it is there but may not be read.
 */
export async function readTextInside(
  root: string,
  relative: string,
  maxBytes?: number,
): Promise<TextRead> {
  return textRead(() => readInside(root, relative, { maxBytes }));
}

export type TextRead = { text: string } | { refused: string } | undefined;

/**
 * Several text files under one root, read together (each is a few system calls on the thread
 * pool) with the root resolved once; the outcomes come in the order of `relatives`.
 */
export async function readTextsInside(
  root: string,
  relatives: readonly string[],
  maxBytes?: number,
): Promise<TextRead[]> {
  // A root that is not there holds none of them.
  const realRoot = await realRootOf(root).catch(() => undefined);
  if (realRoot === undefined) return relatives.map(() => undefined);
  return Promise.all(
    relatives.map((relative) =>
      textRead(async () => readLocated(locateUnder(root, realRoot, relative), { maxBytes })),
    ),
  );
}

async function textRead(read: () => Promise<{ bytes: Buffer }>): Promise<TextRead> {
  try {
    const { bytes } = await read();
    return { text: bytes.toString('utf8') };
  } catch (error) {
    if (!(error instanceof ConfinementError)) throw error;
    return error.code === 'not_found' ? undefined : { refused: error.message };
  }
}
