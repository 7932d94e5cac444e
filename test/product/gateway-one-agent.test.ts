/**
 * One agent per data dir for `pincer gateway`, from the built CLI: a second gateway on the same
 * data dir attaches to the first (prints its address and exits) instead of opening a second
 * agent, taking over `gateway.json` and deleting it on exit while the first still runs; an agent
 * that holds the data dir without a gateway is named, and nothing starts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { Product, until } from './support/harness.js';

const product = new Product();
afterEach(() => product.cleanUp());

it('a second gateway attaches to the first: same address, gateway.json stays the first one', async () => {
  const scratch = await product.scratch('gateway-one');
  const first = product.start(['gateway', ...scratch.model.args], scratch.env);
  const [, firstUrl] = await first.waitFor(/Open: (\S+)/);
  const file = path.join(scratch.dir, 'gateway.json');
  const owner = JSON.parse(readFileSync(file, 'utf8')) as { pid: number };
  expect(owner.pid).toBe(first.child.pid);

  const second = await product.run(['gateway', ...scratch.model.args], scratch.env);
  expect(second.code, second.stderr).toBe(0);
  expect(second.stdout).toContain(`already serves this data directory (pid ${first.child.pid})`);
  expect(second.stdout).toContain(`Open: ${firstUrl}`);
  // The second one neither replaced nor removed the first one's entry.
  expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(owner);

  first.child.kill('SIGTERM');
  await first.exited;
  await until('gateway.json removed by its owner', () => !existsSync(file));
});

it('an agent holding the data dir without a gateway is named, and no second agent starts', async () => {
  const scratch = await product.scratch('gateway-held');
  // The instance lock as the daemon (started with --no-attach) leaves it: a live pid, no gateway.
  await mkdir(path.join(scratch.dir, 'daemon'), { recursive: true });
  await writeFile(path.join(scratch.dir, 'daemon', 'daemon.pid'), `${process.pid}\n`);
  const result = await product.run(['gateway', ...scratch.model.args], scratch.env);
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(`another Pincer agent (pid ${process.pid}:`);
  expect(existsSync(path.join(scratch.dir, 'gateway.json'))).toBe(false);
});
