/**
 * Ctrl+C during `pincer run` on the local model, from the built CLI: the run is cancelled and
 * recorded so, and the command ends by itself. node-llama-cpp brings signal-exit, which re-raised
 * the signal once the command's own `once` listener was gone, so the process died by SIGINT
 * with the run left unfinished.
 */
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { writeTinyGguf } from '../fixtures/tiny-gguf.js';
import { Product, until } from './support/harness.js';

const product = new Product();
afterAll(() => product.cleanUp());

it('Ctrl+C cancels a local-model run: [cancelled], exit 1, the run recorded as cancelled', async () => {
  const scratch = await product.scratch('run-cancel');
  const model = path.join(scratch.dir, 'tiny.gguf');
  await writeTinyGguf(model);
  const run = product.start(
    [
      'run',
      '--model-path',
      model,
      '--threads',
      '1',
      '--max-tokens',
      '4000',
      '--tools',
      '',
      'tell me a long story',
    ],
    scratch.env,
  );
  // Some of the reply has streamed: the model is loaded and generating.
  await until('a reply streaming', () => run.stdout().length > 0, run.output, 120_000);
  run.child.kill('SIGINT');
  const code = await run.exited;
  expect({ code, signal: run.child.signalCode }, run.output()).toEqual({ code: 1, signal: null });
  expect(run.output()).toContain('[cancelled]');
  const listed = await product.run(['runs', 'list', '--json'], scratch.env);
  expect(JSON.parse(listed.stdout)).toMatchObject([{ outcome: 'cancelled' }]);
});
