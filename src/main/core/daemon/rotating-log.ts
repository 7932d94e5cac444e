/**
 * The daemon's log in the data dir (`logs/daemon.log`), rotated by size: past `maxBytes` the
 * file becomes daemon.log.1 (and .1 becomes .2 ...), keeping `keep` old files.
 */
import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';

export class RotatingLog {
  private size: number;

  constructor(
    readonly file: string,
    private readonly maxBytes = 5 * 1024 * 1024,
    private readonly keep = 3,
  ) {
    mkdirSync(path.dirname(file), { recursive: true });
    this.size = sizeOf(file);
  }

  write(line: string): void {
    const text = `${new Date().toISOString()} ${line.replace(/[\r\n]+/g, ' ')}\n`;
    if (this.size + text.length > this.maxBytes) this.rotate();
    appendFileSync(this.file, text, { mode: 0o600 });
    this.size += Buffer.byteLength(text);
  }

  private rotate(): void {
    for (let i = this.keep - 1; i >= 1; i--) {
      try {
        renameSync(`${this.file}.${i}`, `${this.file}.${i + 1}`);
      } catch {
        // Not there yet.
      }
    }
    try {
      renameSync(this.file, `${this.file}.1`);
    } catch {
      // Nothing to rotate.
    }
    this.size = 0;
  }
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
