/**
 * The product suite's global setup: it tests the artifacts, so they must exist (`npm test`
 * builds them first; alone, run `npm run build`). Fails at once, naming what is missing, rather
 * than with a spawn error in every test.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../../..');
export const ARTIFACTS = ['dist/cli.js', 'out/main/index.js', 'out/renderer/index.html'];

export default function checkArtifacts(): void {
  const missing = ARTIFACTS.filter((file) => !existsSync(path.join(root, file)));
  if (missing.length > 0) {
    throw new Error(
      `the product suite tests the built artifacts, and ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing: run \`npm run build\` first (npm test does)`,
    );
  }
}
