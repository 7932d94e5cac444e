/** Headless entry point: `pincer ...`, built to dist/cli.js for plain Node. */
import { defaultCliContext } from './cli/context.js';
import { runCli } from './cli/program.js';

// A reader that goes away (`pincer --help | head -1`) ends the output: exit quietly, as a
// shell command does, instead of an unhandled EPIPE with a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    process.exit(error.code === 'EPIPE' ? 0 : 1);
  });
}

const code = await runCli(process.argv.slice(2), defaultCliContext());
process.exitCode = code;
