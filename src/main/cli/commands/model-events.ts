import type { ModelError } from '../../core/models/errors.js';
import type { ModelEvent } from '../../core/models/types.js';
import type { CliContext } from '../context.js';

export interface PrintOutcome {
  stopReason?: string;
  error?: ModelError;
}

/**
 * Prints one model turn: the reply text as it streams, or (`json`) one JSON event per line for
 * scripts. Returns how the turn ended.
 */
export async function printEvents(
  ctx: CliContext,
  events: AsyncIterable<ModelEvent>,
  json: boolean,
): Promise<PrintOutcome> {
  let outcome: PrintOutcome = {};
  let reasoning = false;
  for await (const event of events) {
    if (json) ctx.stdout.write(`${JSON.stringify(event)}\n`);
    switch (event.type) {
      case 'reasoning_delta':
        if (!json) {
          // Thinking goes to stderr, dimmed, so stdout holds only the answer.
          ctx.stderr.write(reasoning ? event.text : `\x1b[2m${event.text}`);
          reasoning = true;
        }
        break;
      case 'text_delta':
        if (!json) {
          if (reasoning) ctx.stderr.write('\x1b[0m\n');
          reasoning = false;
          ctx.stdout.write(event.text);
        }
        break;
      case 'tool_call_start':
        if (!json) ctx.stderr.write(`\n[tool call: ${event.name}]\n`);
        break;
      case 'finish':
        outcome = { stopReason: event.stopReason };
        break;
      case 'connection_lost':
        outcome = { error: event.error };
        break;
      default:
        break;
    }
  }
  if (!json) ctx.stdout.write('\n');
  return outcome;
}
