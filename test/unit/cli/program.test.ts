/**
 * The CLI imports a command's module only when that command runs; the names, usage terms and
 * summaries that stand in for the others must say exactly what the modules register.
 */
import { expect, it } from 'vitest';
import { buildProgram, COMMANDS, commandNamed } from '../../../src/main/cli/program.js';

const ctx = {
  dataDir: '/nonexistent/pincer-data',
  appDir: '/nonexistent/pincer-app',
  stdout: process.stdout,
  stderr: process.stderr,
};
const ignore = () => undefined;

it('help without loading any command module reads exactly as with all of them loaded', async () => {
  const stubs = await buildProgram(ctx, ignore, { command: undefined });
  const loaded = await buildProgram(ctx, ignore, 'all');
  expect(stubs.helpInformation()).toBe(loaded.helpInformation());
  expect(stubs.commands.map((command) => command.name())).toEqual(
    loaded.commands.map((command) => command.name()),
  );
});

it('naming a command loads its module: its options and subcommands are there', async () => {
  for (const entry of COMMANDS) {
    for (const { name } of entry.commands) {
      const program = await buildProgram(ctx, ignore, { command: name });
      const loaded = (await buildProgram(ctx, ignore, 'all')).commands.find(
        (command) => command.name() === name,
      );
      const command = program.commands.find((candidate) => candidate.name() === name);
      expect(command?.helpInformation(), name).toBe(loaded?.helpInformation());
    }
  }
});

it('finds the command in argv, past options and through `help NAME`', () => {
  expect(commandNamed(['--version'])).toBeUndefined();
  expect(commandNamed(['run', '--tools', '', 'hello'])).toBe('run');
  expect(commandNamed(['--help', 'memory'])).toBe('memory');
  expect(commandNamed(['help', 'skills'])).toBe('skills');
});
