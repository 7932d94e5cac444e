import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const repoRoot = path.resolve(import.meta.dirname, '../..');

describe('npm start without an Electron binary', () => {
  it('exits 1 with a message that points to the headless path', async () => {
    // An empty dist override stands for "the binary was never downloaded".
    const empty = await mkdtemp(path.join(os.tmpdir(), 'pincer-noelectron-'));
    try {
      const result = spawnSync(process.execPath, [path.join(repoRoot, 'scripts/start.mjs')], {
        cwd: repoRoot,
        encoding: 'utf8',
        env: {
          ...process.env,
          ELECTRON_OVERRIDE_DIST_PATH: empty,
          PINCER_NO_ELECTRON_DOWNLOAD: '1',
        },
      });
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('needs the Electron binary');
      expect(result.stderr).toContain('npx pincer doctor');
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
