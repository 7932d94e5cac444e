/**
 * Reading secret values without argv (argv is visible in `ps` and shell history): a hidden
 * prompt on a terminal, otherwise all of stdin.
 */
import { PincerError } from '../core/errors.js';

export class InputCancelled extends PincerError {
  override readonly name = 'InputCancelled';
  constructor(message: string) {
    super('cancelled', message);
  }
}

/** Reads one line from a TTY without echoing it. */
export function promptHidden(
  prompt: string,
  input: NodeJS.ReadStream = process.stdin,
  output: NodeJS.WritableStream = process.stderr,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const chars: string[] = [];
    output.write(prompt);
    input.setRawMode(true);
    input.resume();
    input.setEncoding('utf8');
    const done = (error?: Error) => {
      input.removeListener('data', onData);
      input.setRawMode(false);
      input.pause();
      output.write('\n');
      const value = chars.join('');
      chars.length = 0;
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (data: string) => {
      for (const ch of data) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return done();
        if (ch === '\u0003') return done(new InputCancelled('cancelled'));
        if (ch === '\u007f' || ch === '\b') chars.pop();
        else chars.push(ch);
      }
    };
    input.on('data', onData);
  });
}

/** Reads all of a piped stdin; one trailing newline (from `echo` or a file) is dropped. */
export async function readAllStdin(input: NodeJS.ReadableStream = process.stdin): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Buffer));
  }
  const all = Buffer.concat(chunks);
  const text = all.toString('utf8');
  all.fill(0);
  for (const chunk of chunks) chunk.fill(0);
  return text.endsWith('\r\n') ? text.slice(0, -2) : text.endsWith('\n') ? text.slice(0, -1) : text;
}

/** The value for `secrets set`: hidden prompt on a terminal, stdin otherwise. */
export async function readSecretValue(name: string): Promise<string> {
  return process.stdin.isTTY ? promptHidden(`Value for ${name}: `) : readAllStdin();
}
