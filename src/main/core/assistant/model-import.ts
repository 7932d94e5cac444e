/**
 * Importing a GGUF file a person picked or dropped in the app. The bytes arrive in pieces over
 * the IPC contract (the same way in the browser and in Electron), are written to a hidden part
 * file in the models folder, and become a model only once the bounded header check passes: a
 * file that is not a sound GGUF is deleted and the reason said.
 */
import { randomBytes } from 'node:crypto';
import { type FileHandle, lstat, mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { inspectModelFile } from '../local/index.js';
import { smallContextNote } from '../models/index.js';
import { InvalidRequest, NotFound } from './types.js';

/** A name we write in the models folder: a plain file name ending in .gguf. */
const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9 ._()+-]{0,190}\.gguf$/i;

interface Upload {
  fileName: string;
  sizeBytes: number;
  received: number;
  part: string;
  handle: FileHandle;
}

export class ModelImports {
  private readonly uploads = new Map<string, Upload>();

  constructor(private readonly modelsDir: string) {}

  async begin(fileName: string, sizeBytes: number): Promise<string> {
    const name = path.basename(fileName.trim());
    if (!FILE_NAME.test(name)) {
      throw new InvalidRequest(
        `"${fileName}" cannot be imported: choose a .gguf model file (letters, digits, spaces, . _ - in its name)`,
      );
    }
    if (await exists(path.join(this.modelsDir, name))) {
      throw new InvalidRequest(`a model named ${name} is already installed`);
    }
    await mkdir(this.modelsDir, { recursive: true });
    const id = `imp_${randomBytes(8).toString('hex')}`;
    const part = path.join(this.modelsDir, `.${id}.part`);
    // wx: never through a file or link someone planted under this name.
    const handle = await open(part, 'wx', 0o600);
    this.uploads.set(id, { fileName: name, sizeBytes, received: 0, part, handle });
    return id;
  }

  /** Appends the next piece; pieces arrive in order (`offset` is what has been received). */
  async chunk(id: string, offset: number, data: Buffer): Promise<number> {
    const upload = this.get(id);
    if (offset !== upload.received) {
      throw new InvalidRequest(`expected the piece at byte ${upload.received}, got ${offset}`);
    }
    if (upload.received + data.length > upload.sizeBytes) {
      await this.cancel(id);
      throw new InvalidRequest(`the file is larger than the ${upload.sizeBytes} bytes announced`);
    }
    await upload.handle.write(data, 0, data.length, offset);
    upload.received += data.length;
    return upload.received;
  }

  /**
   * Checks the header and moves the file into the models folder; returns its file name, and
   * what a small trained context will mean for the chat.
   */
  async finish(id: string): Promise<{ fileName: string; note?: string }> {
    const upload = this.get(id);
    this.uploads.delete(id);
    await upload.handle.close();
    try {
      if (upload.received !== upload.sizeBytes) {
        throw new InvalidRequest(
          `the import stopped at ${upload.received} of ${upload.sizeBytes} bytes`,
        );
      }
      const facts = await inspectModelFile(upload.part).catch((error: unknown) => {
        const why = error instanceof Error ? error.message : String(error);
        throw new InvalidRequest(
          `${upload.fileName} is not a usable model: ${why.split(upload.part).join(upload.fileName)}`,
        );
      });
      const target = path.join(this.modelsDir, upload.fileName);
      if (await exists(target)) {
        throw new InvalidRequest(`a model named ${upload.fileName} is already installed`);
      }
      await rename(upload.part, target);
      const note = smallContextNote(facts.trainContextSize);
      return note ? { fileName: upload.fileName, note } : { fileName: upload.fileName };
    } catch (error) {
      await rm(upload.part, { force: true });
      throw error;
    }
  }

  async cancel(id: string): Promise<void> {
    const upload = this.uploads.get(id);
    if (!upload) return;
    this.uploads.delete(id);
    await upload.handle.close().catch(() => undefined);
    await rm(upload.part, { force: true });
  }

  /** Removes every unfinished import (the app closing). */
  async close(): Promise<void> {
    await Promise.all([...this.uploads.keys()].map((id) => this.cancel(id)));
  }

  private get(id: string): Upload {
    const upload = this.uploads.get(id);
    if (!upload) throw new NotFound(`no import ${id} in progress`);
    return upload;
  }
}

async function exists(file: string): Promise<boolean> {
  return lstat(file).then(
    () => true,
    () => false,
  );
}
