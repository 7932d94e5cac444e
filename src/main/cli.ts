/** Headless entry point: `pincer ...`, built to dist/cli.js for plain Node. */
import { defaultCliContext } from './cli/context.js';
import { runCli } from './cli/program.js';

const code = await runCli(process.argv.slice(2), defaultCliContext());
process.exitCode = code;
