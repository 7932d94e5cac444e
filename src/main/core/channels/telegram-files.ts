/**
 * Files over Telegram, where the channel's `features.files` allows them. In: a document or a
 * photo is fetched through getFile and the Bot API's file route, bounded in size (the header, the
 * declared sizes and the bytes themselves), and stored under `inbox/<channel>/<chat>/` in the
 * workspace with a sanitized name through the workspace guard; the run's text names the stored
 * path and, for a small UTF-8 text file, carries its content fenced as the desktop's attachments
 * are. Out: the files the run's writing tool calls named (the tool card's reading of them) are
 * read back through the same guard and sent as documents after the reply.
 */
import path from 'node:path';
import { fenceFile, MAX_ATTACHMENT_BYTES } from '../../../shared/attachments.js';
import { writtenPathArguments } from '../../../shared/written-paths.js';
import type { RunEvent } from '../runtime/index.js';
import { ConfinementError, createInside, readInside } from '../workspace-fs/index.js';
import { numberedName, safeFileName } from './file-names.js';
import { ChannelError } from './types.js';

/** A bot may download at most 20 MB through the Bot API. */
export const TELEGRAM_DOWNLOAD_LIMIT = 20 * 1024 * 1024;
/** A bot may send documents of at most 50 MB. */
export const TELEGRAM_UPLOAD_LIMIT = 50 * 1024 * 1024;
const DOWNLOAD_TIMEOUT_MS = 120_000;
const MAX_SENT_PER_RUN = 10;
const MAX_NAME_TRIES = 100;

/** What a message carries besides text, as the channel decides about it. */
export type Carried =
  | { kind: 'file'; fileId: string; name: string; size?: number; photo: boolean }
  | { kind: 'voice' };

/** The parts of a Telegram message this module reads (grammY's Message has them all). */
export interface MessageFiles {
  document?: { file_id: string; file_unique_id: string; file_name?: string; file_size?: number };
  photo?: Array<{ file_id: string; file_unique_id: string; file_size?: number }>;
  voice?: unknown;
  audio?: unknown;
  video_note?: unknown;
}

export function carriedBy(message: MessageFiles, maxBytes: number): Carried | undefined {
  if (message.document) {
    const { file_id, file_unique_id, file_name, file_size } = message.document;
    return {
      kind: 'file',
      fileId: file_id,
      name: safeFileName(file_name ?? '', `file-${safeFileName(file_unique_id)}`),
      size: file_size,
      photo: false,
    };
  }
  if (message.photo?.length) {
    // Sizes come smallest first: the largest that fits the bound (else the smallest, refused).
    const fitting = message.photo.filter((p) => (p.file_size ?? 0) <= maxBytes);
    const chosen = fitting.at(-1) ?? (message.photo[0] as NonNullable<MessageFiles['photo']>[0]);
    return {
      kind: 'file',
      fileId: chosen.file_id,
      name: `photo-${safeFileName(chosen.file_unique_id, 'image')}.jpg`,
      size: chosen.file_size,
      photo: true,
    };
  }
  if (message.voice || message.audio || message.video_note) return { kind: 'voice' };
  return undefined;
}

/** The Bot API call this module needs (grammY's `bot.api` has it). */
export interface FileApi {
  getFile(fileId: string): Promise<{ file_path?: string; file_size?: number }>;
}

export interface InboxTarget {
  workspace: string;
  channel: string;
  chat: string;
  /** `<api root>/file/bot<token>`: holds the token, so it never appears in a message. */
  fileRoot: string;
  maxBytes: number;
}

export interface StoredFile {
  /** Relative to the workspace, with forward slashes. */
  path: string;
  name: string;
  bytes: number;
  photo: boolean;
  /** The content, when it is UTF-8 text small enough to go into the message. */
  text?: string;
}

/** Downloads and stores the file; a refusal or a failure is a ChannelError the sender can read. */
export async function receiveFile(
  api: FileApi,
  file: Extract<Carried, { kind: 'file' }>,
  target: InboxTarget,
): Promise<StoredFile> {
  checkSize(file.size, target.maxBytes, file.name);
  const info = await api.getFile(file.fileId).catch((error: unknown) => {
    throw new ChannelError(
      'unreachable',
      `"${file.name}" could not be downloaded: ${(error as Error).message}`,
    );
  });
  checkSize(info.file_size, target.maxBytes, file.name);
  if (!info.file_path)
    throw new ChannelError('unreachable', `"${file.name}" could not be downloaded: no file path`);
  const url = `${target.fileRoot}/${info.file_path.split('/').map(encodeURIComponent).join('/')}`;
  const bytes = await download(url, target.maxBytes, file.name);
  const folder = path.posix.join(
    'inbox',
    safeFileName(target.channel, 'channel'),
    safeFileName(target.chat, 'chat'),
  );
  const name = await storeNew(target.workspace, folder, file.name, bytes);
  return {
    path: path.posix.join(folder, name),
    name,
    bytes: bytes.length,
    photo: file.photo,
    ...(file.photo ? {} : textOf(bytes)),
  };
}

/** The run's text: the caption, where the file was stored, and a text file's content. */
export function messageWithFile(caption: string, file: StoredFile): string {
  const what = file.photo ? 'a photo' : 'a file';
  const lines = [
    caption.trim(),
    `The user sent ${what} over Telegram, saved in the workspace as ${JSON.stringify(file.path)} (${file.bytes} bytes).`,
  ];
  if (file.text !== undefined) lines.push(fenceFile(file.name, file.text));
  else if (!file.photo)
    lines.push('Its content is not included here: read it with the file tools.');
  return lines.filter(Boolean).join('\n\n');
}

/**
 * The workspace files the run's writing tool calls named, in the order they finished: calls
 * that were refused or failed name nothing.
 */
export function filesWritten(events: readonly RunEvent[]): string[] {
  const writes = new Map<string, Record<string, unknown>>();
  const found: string[] = [];
  for (const event of events) {
    if (event.type === 'tool.requested' && !event.read_only)
      writes.set(event.call.id, event.call.input);
    if (event.type === 'tool.finished' && event.status === 'ok') {
      const input = writes.get(event.call_id);
      if (input) found.push(...writtenPathArguments(input));
    }
  }
  return [...new Set(found)].slice(0, MAX_SENT_PER_RUN);
}

export type Outgoing =
  | { name: string; bytes: Buffer }
  | { name: string; refused: string }
  /** The run wrote it and removed it (or the call removed it): nothing to send. */
  | { name: string; gone: true };

/** A written file read back through the workspace guard, or why it is not sent. */
export async function outgoingFile(
  workspace: string,
  written: string,
  maxBytes: number,
): Promise<Outgoing> {
  const name = safeFileName(path.basename(written));
  try {
    const { bytes } = await readInside(workspace, written, { maxBytes });
    return { name, bytes };
  } catch (error) {
    if (!(error instanceof ConfinementError)) throw error;
    if (error.code === 'not_found') return { name, gone: true };
    return {
      name,
      refused:
        error.code === 'too_large'
          ? `larger than ${megabytes(maxBytes)}`
          : error.code === 'outside'
            ? 'outside the workspace'
            : error.message,
    };
  }
}

function checkSize(size: number | undefined, maxBytes: number, name: string): void {
  if (size !== undefined && size > maxBytes) throw tooLarge(name, maxBytes);
}

function tooLarge(name: string, maxBytes: number): ChannelError {
  return new ChannelError(
    'too_large',
    `"${name}" is too large: this channel takes files up to ${megabytes(maxBytes)}.`,
  );
}

function megabytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.floor(bytes / (1024 * 1024))} MB` : `${bytes} bytes`;
}

/** The bytes at `url`, never more than `maxBytes` of them held: a larger body is cut off. */
async function download(url: string, maxBytes: number, name: string): Promise<Buffer> {
  const failed = (why: string) =>
    new ChannelError('unreachable', `"${name}" could not be downloaded: ${why}`);
  // The URL holds the bot token: no message here quotes it or an error that could.
  const response = await fetch(url, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) }).catch(
    () => {
      throw failed('the Bot API could not be reached');
    },
  );
  if (!response.ok || !response.body) {
    await response.body?.cancel().catch(() => undefined);
    throw failed(`the Bot API answered ${response.status}`);
  }
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body.cancel().catch(() => undefined);
    throw tooLarge(name, maxBytes);
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      length += value.length;
      if (length > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge(name, maxBytes);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof ChannelError) throw error;
    throw failed('the download broke off');
  }
  return Buffer.concat(chunks, length);
}

/** Creates a new file in `folder`, `name` or the first free `name-n`; returns the name used. */
async function storeNew(
  workspace: string,
  folder: string,
  name: string,
  bytes: Buffer,
): Promise<string> {
  for (let n = 0; n < MAX_NAME_TRIES; n++) {
    const candidate = n === 0 ? name : numberedName(name, n);
    try {
      await createInside(workspace, path.posix.join(folder, candidate), bytes);
      return candidate;
    } catch (error) {
      if (error instanceof ConfinementError && error.code === 'exists') continue;
      throw new ChannelError(
        'bad_request',
        `"${name}" could not be stored: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  throw new ChannelError('bad_request', `"${name}" could not be stored: too many with that name`);
}

/** Strict UTF-8 without NUL bytes, small enough for the message; otherwise nothing. */
function textOf(bytes: Buffer): { text?: string } {
  if (bytes.length > MAX_ATTACHMENT_BYTES || bytes.includes(0)) return {};
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    return {};
  }
}
