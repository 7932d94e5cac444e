/** `npm run bench -- NAME` runs bench/NAME.bench.ts; with no name, lists what exists. */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const benchDir = import.meta.dirname;
const available = (await readdir(benchDir))
  .filter((file) => file.endsWith('.bench.ts'))
  .map((file) => file.replace(/\.bench\.ts$/, ''))
  .sort();

const names = process.argv.slice(2);
if (names.length === 0) {
  console.log(`usage: npm run bench -- NAME [NAME ...]\navailable: ${available.join(', ')}`);
  process.exit(0);
}
for (const name of names) {
  if (!available.includes(name)) {
    console.error(`unknown benchmark "${name}"; available: ${available.join(', ')}`);
    process.exit(2);
  }
  const module = (await import(pathToFileURL(path.join(benchDir, `${name}.bench.ts`)).href)) as {
    run: () => Promise<void>;
  };
  await module.run();
}
