/** The load caches under `<data dir>/cache/`: written whole, then renamed into place. */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';

export const cacheDir = (dataDir: string) => path.join(dataDir, 'cache');

export async function writeCacheFile(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, text, { mode: 0o600 });
  await rename(temporary, file);
}
