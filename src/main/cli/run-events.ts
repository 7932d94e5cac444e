import type { RunEventView } from '../../shared/ipc.js';
import type { RunEvent } from '../core/runtime/index.js';
import type { CliContext } from './context.js';
import { writeControl } from './terminal-text.js';

/** How a run ended, as its caller reports it. */
export interface RunFinished {
  outcome: string;
  reason: string;
}

/**
 * Prints a run as a person reads it: the reply on stdout as it streams; thinking (dimmed),
 * tool activity and fallbacks on stderr. With `json`, every run event is one JSON line. The
 * runtime's events and the contract's views of them (an attached chat) print alike.
 */
export async function printRun(
  ctx: CliContext,
  events: AsyncIterable<RunEvent | RunEventView>,
  json: boolean,
): Promise<RunFinished | undefined> {
  let finished: RunFinished | undefined;
  let thinking = false;
  let midLine = false;
  const endThinking = () => {
    if (thinking) {
      writeControl(ctx.stderr, '\x1b[0m');
      ctx.stderr.write('\n');
    }
    thinking = false;
  };
  for await (const event of events) {
    if (json) {
      ctx.stdout.write(`${JSON.stringify(event)}\n`);
      if (event.type === 'run.finished') finished = event;
      continue;
    }
    switch (event.type) {
      case 'model.delta':
        if (event.kind === 'reasoning') {
          if (!thinking) writeControl(ctx.stderr, '\x1b[2m');
          ctx.stderr.write(event.text);
          thinking = true;
        } else {
          endThinking();
          ctx.stdout.write(event.text);
          midLine = !event.text.endsWith('\n');
        }
        break;
      case 'model.finished':
        endThinking();
        if (event.fallbacks?.length) {
          ctx.stderr.write(
            `[answered by ${event.model}; before it: ${event.fallbacks.join('; ')}]\n`,
          );
        }
        break;
      case 'context.fitted':
        if (midLine) ctx.stdout.write('\n');
        midLine = false;
        ctx.stderr.write(`[${event.note}]\n`);
        break;
      case 'tool.started':
        if (midLine) ctx.stdout.write('\n');
        midLine = false;
        ctx.stderr.write(`[tool ${event.name}]\n`);
        break;
      case 'run.finished':
        finished = event;
        break;
      default:
        break;
    }
  }
  if (!json && midLine) ctx.stdout.write('\n');
  return finished;
}
