import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

export interface AtomicWriteOptions {
  mode?: number;
  /** Test seam: lets a test make the final rename fail to prove the old file survives. */
  rename?: (from: string, to: string) => Promise<void>;
}

/**
 * Writes `data` to `file` so that readers see either the old or the new contents, never a mix:
 * temp file in the same directory, fsync, rename over, fsync the directory. On any failure the
 * temp file is removed and the existing file is untouched.
 */
export async function writeFileAtomic(
  file: string,
  data: Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const mode = options.mode ?? 0o600;
  const dir = path.dirname(file);
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const temp = path.join(
    dir,
    `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
  );
  const handle = await fs.open(temp, 'wx', mode);
  try {
    try {
      await handle.writeFile(data);
      // The umask may have narrowed the mode; it can never widen it, but be explicit anyway.
      await handle.chmod(mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await (options.rename ?? fs.rename)(temp, file);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
  await syncDir(dir);
}

async function syncDir(dir: string): Promise<void> {
  // Directory fsync makes the rename durable; not supported on Windows, harmless to skip.
  if (process.platform === 'win32') return;
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } catch {
    // Some filesystems refuse fsync on directories; the rename itself is still atomic.
  } finally {
    await handle.close();
  }
}
