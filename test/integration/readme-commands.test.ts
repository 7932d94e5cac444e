/**
 * Every command the README tells a user to type is run: each `pincer`, `npx pincer` and `npm`
 * line of its shell code fences (test/support/readme-commands.ts), in README order, as a shell
 * runs it, against the built dist/cli.js (npm run build first), on a fresh data directory holding
 * a tiny local model. A command exits 0 unless listed below; a server is started, stopped once it
 * answers (prints its address or says it is ready); the dashboard runs in a pseudo-terminal and
 * is left with Ctrl+C once drawn. The Usage table's synopses are checked against the CLI's help:
 * each subcommand exists, each option is one. The README can be rewritten freely: its
 * commands are read from it, and only what cannot run here is named in this file, with why.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { spawn as spawnPty } from '@lydell/node-pty';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { checkKeychain } from '../../src/main/core/doctor/checks.js';
import { writeTinyGguf } from '../fixtures/tiny-gguf.js';
import { builtCli, repoRoot } from '../support/cli-run.js';
import {
  placeholdersOf,
  readmeLines,
  synopsisProblems,
  tableSynopses,
  variantsOf,
} from '../support/readme-commands.js';

/** What cannot run inside the test suite, and where it is proven instead. */
const NOT_RUN: Array<[RegExp, string]> = [
  [/^npm install\b/, 'installs dependencies: the suite runs inside that install'],
  [/^npm test\b/, 'the suite itself'],
  [
    /^npm run build\b/,
    'npm test builds before the suite; building again would replace dist/ and out/ under the tests running beside this one',
  ],
  [
    /^npm start\b/,
    'builds first (see npm run build), then launches Electron or the browser UI: test/integration/start.test.ts starts it',
  ],
  [/^npm run dist(:gpu)?$/, "downloads Electron's binary for the target: needs internet"],
  [
    /^npm run dist:check\b/,
    'builds first (see npm run build); test/integration/dist-check-built.test.ts runs its check on the built bundle',
  ],
];

/** Long-running commands: started, stopped with Ctrl+C once they answer. */
const SERVER = /^(npx )?pincer (gateway|daemon|serve)\b/;
const ANSWERED = /https?:\/\/127\.0\.0\.1:\d+|\bready\b/;
/** Full-screen terminal programs: run in a pseudo-terminal, left with Ctrl+C once drawn. */
const TERMINAL = /^(npx )?pincer tui\b/;
const DRAWN = /Model: \S/;

/** Values for the README's placeholders (a fresh data dir has nothing else to name). */
const BINDINGS: Record<string, string> = {
  NAME: 'readme-test',
  PATH: '~/notes/SKILL.md',
  WORDS: 'spare key',
};

/** Commands whose documented outcome depends on this machine. */
const OUTCOMES: Array<{ match: RegExp; code: () => Promise<number>; why: string }> = [
  {
    match: /^(npx )?pincer secrets migrate --to keychain\b/,
    code: async () => ((await checkKeychain()).status === 'ok' ? 0 : 1),
    why: 'exits 1 naming the reason where no OS keychain is reachable',
  },
];

let scratch = '';
let env: NodeJS.ProcessEnv = {};

beforeAll(async () => {
  if (!existsSync(builtCli)) throw new Error('dist/cli.js is missing: run `npm run build` first');
  scratch = await mkdtemp(path.join(os.tmpdir(), 'pincer-readme-'));
  const home = path.join(scratch, 'home');
  const bin = path.join(scratch, 'bin');
  await mkdir(path.join(home, 'notes'), { recursive: true });
  await mkdir(bin);
  // What a user has at hand: `pincer` on PATH (npm link / a global install), `npx pincer` in
  // the repository, a notes folder holding a skill.
  await writeFile(
    path.join(bin, 'pincer'),
    `#!/bin/sh\nexec "${process.execPath}" "${builtCli}" "$@"\n`,
  );
  await writeFile(
    path.join(bin, 'npx'),
    `#!/bin/sh\n[ "$1" = pincer ] || { echo "npx $1: not a README command" >&2; exit 127; }\nshift\nexec pincer "$@"\n`,
  );
  await chmod(path.join(bin, 'pincer'), 0o755);
  await chmod(path.join(bin, 'npx'), 0o755);
  await writeFile(
    path.join(home, 'notes', 'SKILL.md'),
    '---\nname: readme-test\ndescription: Where things are kept at home\n---\nThe spare key is under the blue pot.\n',
  );
  const data = path.join(scratch, 'data');
  await mkdir(path.join(data, 'models'), { recursive: true });
  await writeTinyGguf(path.join(data, 'models', 'tiny.gguf'), { tokenizer: 'bpe' });
  env = {
    ...process.env,
    HOME: home,
    PINCER_HOME: data,
    PINCER_MODEL: '',
    PINCER_VAULT_PASSPHRASE: 'readme-test-passphrase',
    PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
  };
});
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const helps = new Map<string, string>();
/** `pincer WORDS --help` of the built CLI. */
function helpOf(words: string[]): string {
  const key = words.join(' ');
  let help = helps.get(key);
  if (help === undefined) {
    try {
      help = execFileSync(process.execPath, [builtCli, ...words, '--help'], {
        env,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      });
    } catch {
      help = '';
    }
    helps.set(key, help);
  }
  return help;
}

/** The subcommands the built CLI lists in `pincer WORDS --help`. */
function subcommandsOf(words: string[]): string[] {
  const commands = helpOf(words).split('\nCommands:\n')[1] ?? '';
  return [...commands.matchAll(/^ {2}([a-z][\w-]*)/gm)]
    .map((m) => m[1] as string)
    .filter((name) => name !== 'help');
}

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  answered?: boolean;
}

/** Runs a command line as a shell does, in the repository; a server until it answers. */
function runShell(command: string, server: boolean): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', `exec ${command}`], {
      cwd: repoRoot,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    let answered = false;
    const take = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (server && !answered && ANSWERED.test(output)) {
        answered = true;
        child.kill('SIGINT');
      }
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    // A hang, not slowness: a command that neither exits nor answers in two minutes.
    const hang = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(hang);
      resolve({ code, signal, output, answered });
    });
    // `pincer secrets set NAME` reads the value from stdin when it is not a terminal.
    child.stdin.end('readme-test-value\n');
  });
}

/** Runs a command line in a pseudo-terminal until its screen is drawn, then presses Ctrl+C. */
function runTerminal(command: string): Promise<Ran> {
  return new Promise((resolve) => {
    const term = spawnPty('/bin/sh', ['-c', `exec ${command}`], {
      name: 'xterm-256color',
      cols: 100,
      rows: 30,
      cwd: repoRoot,
      env: { ...env, FORCE_COLOR: '0' } as Record<string, string>,
    });
    let raw = '';
    let answered = false;
    term.onData((data) => {
      raw += data;
      if (!answered && DRAWN.test(stripVTControlCharacters(raw))) {
        answered = true;
        term.write('\x03');
      }
    });
    const hang = setTimeout(() => term.kill('SIGKILL'), 120_000);
    term.onExit(({ exitCode, signal }) => {
      clearTimeout(hang);
      resolve({
        code: exitCode,
        signal: signal === 2 ? 'SIGINT' : null,
        output: stripVTControlCharacters(raw),
        answered,
      });
    });
  });
}

/** An example id in the README (note:2026-11-23-1a2b3c4d) stands for one printed earlier. */
function bindExampleIds(command: string, printed: string): string {
  return command.replace(/\b([a-z]+):([0-9a-f-]{8,})\b/g, (example, kind: string, id: string) => {
    const shape = id.replace(/[0-9a-f]/g, '[0-9a-f]');
    const seen = [...printed.matchAll(new RegExp(`\\b${kind}:${shape}\\b`, 'g'))].at(-1);
    return seen ? seen[0] : example;
  });
}

/** Runs every command of a README; returns what did not exit as documented, and what was not run. */
async function runReadme(
  markdown: string,
): Promise<{ failures: string[]; notRun: string[]; ran: string[] }> {
  const failures: string[] = [];
  const notRun: string[] = [];
  const ran: string[] = [];
  let printed = '';
  for (const line of readmeLines(markdown)) {
    const where = `README.md:${line.line} (${line.section})`;
    for (const variant of variantsOf(line.written, subcommandsOf)) {
      const skip = NOT_RUN.find(([pattern]) => pattern.test(variant));
      if (skip) {
        notRun.push(`${variant}: ${skip[1]}`);
        continue;
      }
      const unbound = placeholdersOf(variant).filter((word) => !(word in BINDINGS));
      if (unbound.length > 0) {
        failures.push(
          `${where}: ${variant}: no value for ${unbound.join(', ')} (add it to BINDINGS)`,
        );
        continue;
      }
      const command = bindExampleIds(
        variant
          .split(' ')
          .map((word) => BINDINGS[word] ?? word)
          .join(' '),
        printed,
      );
      const terminal = TERMINAL.test(command);
      const server = terminal || SERVER.test(command) || line.background;
      const outcome = OUTCOMES.find((o) => o.match.test(command));
      const expected = outcome ? await outcome.code() : 0;
      const result = terminal ? await runTerminal(command) : await runShell(command, server);
      printed += result.output;
      ran.push(command);
      const exitedAsDocumented = server
        ? // Ctrl+C before its handler is in place ends it by the signal itself: stopped as well.
          result.answered === true &&
          (result.code === 0 || result.code === 130 || result.signal === 'SIGINT')
        : result.code === expected;
      if (!exitedAsDocumented) {
        const lines = result.output.trim().split('\n');
        const tail = [...new Set([lines[0], lines.at(-1)])].join(' / ');
        failures.push(
          `${where}: ${command}: ${server ? `answered ${result.answered}, ` : ''}exit ${result.code}, expected ${server ? '0 after Ctrl+C' : expected}: ${tail}`,
        );
      }
    }
  }
  return { failures, notRun, ran };
}

it('every command in README.md runs and exits as documented', async () => {
  const { failures, notRun, ran } = await runReadme(
    await readFile(path.join(repoRoot, 'README.md'), 'utf8'),
  );
  for (const command of ran) console.log(`ran: ${command}`);
  for (const line of notRun) console.log(`not run here: ${line}`);
  for (const outcome of OUTCOMES)
    console.log(`machine-dependent: ${outcome.match.source}: ${outcome.why}`);
  // Not vacuous: the Quick start's commands and a surface's server were found and run.
  expect(ran).toContain('npx pincer doctor');
  expect(ran.some((command) => SERVER.test(command))).toBe(true);
  expect(ran.some((command) => TERMINAL.test(command))).toBe(true);
  expect(failures).toEqual([]);
}, 900_000);

it('a README command that does not work fails the check', async () => {
  const { failures, ran } = await runReadme(
    [
      '## Usage',
      '',
      '```sh',
      'npx pincer --help',
      'npx pincer frobnicate NAME   # not a command',
      '```',
    ].join('\n'),
  );
  expect(ran).toEqual(['npx pincer --help', 'npx pincer frobnicate readme-test']);
  expect(failures).toHaveLength(1);
  expect(failures[0]).toMatch(
    /^README\.md:5 \(Usage\): npx pincer frobnicate readme-test: exit 2, expected 0: .*unknown command 'frobnicate'/,
  );
});

it("the Usage table's synopses name commands and options the CLI has", async () => {
  const synopses = tableSynopses(await readFile(path.join(repoRoot, 'README.md'), 'utf8'));
  expect(synopses.map((s) => s.written)).toContain('doctor [--json]');
  const problems = synopses.flatMap((s) =>
    synopsisProblems(s.written, helpOf, subcommandsOf).map((p) => `README.md:${s.line}: ${p}`),
  );
  expect(problems).toEqual([]);
  // A synopsis the CLI does not have is caught.
  expect(synopsisProblems('models list|verify', helpOf, subcommandsOf)).toEqual([
    'pincer models verify is not a command',
  ]);
  expect(synopsisProblems('doctor [--fix]', helpOf, subcommandsOf)).toEqual([
    'pincer doctor has no option --fix',
  ]);
});
