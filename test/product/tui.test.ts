/**
 * `pincer tui` from the built CLI in a real pseudo-terminal, serving its own agent (no gateway
 * runs for its data dir): one message typed, the scripted model's reply drawn, Ctrl+C leaves.
 */
import { stripVTControlCharacters } from 'node:util';
import { spawn } from '@lydell/node-pty';
import { afterAll, expect, it } from 'vitest';
import { builtCli, Product, repoRoot, until } from './support/harness.js';

const product = new Product();
afterAll(() => product.cleanUp());

it('chats on a terminal: the typed message gets the model’s reply, and Ctrl+C quits', async () => {
  const scratch = await product.scratch('tui');
  const term = spawn(process.execPath, [builtCli, 'tui', ...scratch.model.args], {
    name: 'xterm-256color',
    cols: 100,
    rows: 30,
    cwd: repoRoot,
    // CI set as build machines set it: Ink would then draw only its last frame, on exit.
    env: { ...scratch.env, FORCE_COLOR: '0', CI: 'true' } as Record<string, string>,
  });
  let raw = '';
  term.onData((data) => {
    raw += data;
  });
  const exited = new Promise<number>((resolve) => term.onExit(({ exitCode }) => resolve(exitCode)));
  product.onCleanUp(async () => term.kill());
  const screen = () => stripVTControlCharacters(raw);
  const shows = (text: string) =>
    until(
      `"${text}" on the terminal`,
      () => screen().includes(text),
      () => screen().slice(-3000),
    );

  // The model's name arrives after the input hooks put the terminal in raw mode: keys typed
  // before that would be cooked by the terminal into one line.
  await shows('Model: openai-compatible/m');
  term.write('hello terminal');
  await shows('hello terminal');
  term.write('\r');
  await shows('echo: hello terminal');
  term.write('\x03');
  expect(await exited).toBe(0);
});
