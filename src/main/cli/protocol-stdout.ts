import { Writable } from 'node:stream';
import type { CliContext } from './context.js';

/**
 * For a protocol on stdio (CKP, MCP): frames go to the real stdout through `stream`; whatever
 * else writes to process.stdout (a library's log, a stray console.log) goes to stderr until
 * `restore`. A context whose stdout is not the process's (tests) is used as it is.
 */
export function protocolStdout(ctx: CliContext): { stream: Writable; restore(): void } {
  if (ctx.stdout !== process.stdout) return { stream: ctx.stdout as Writable, restore: () => {} };
  const original = process.stdout.write;
  const writeOut = original.bind(process.stdout) as (
    chunk: Buffer,
    done: (error?: Error | null) => void,
  ) => boolean;
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      writeOut(chunk, (error) => done(error ?? undefined));
    },
  });
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  return {
    stream,
    restore: () => {
      process.stdout.write = original;
    },
  };
}
