import { createInterface, type Interface } from 'node:readline';
import { summarizeArguments } from '../../shared/abridge.js';
import type { ContentScanner } from '../core/policy/index.js';
import {
  type ApprovalBroker,
  type PendingApproval,
  sessionGrantText,
} from '../core/policy/index.js';
import type { CliContext } from './context.js';

const ANSWERS: Record<string, 'approve' | 'deny' | 'approve-for-session'> = {
  y: 'approve',
  yes: 'approve',
  n: 'deny',
  no: 'deny',
  s: 'approve-for-session',
  session: 'approve-for-session',
};

/**
 * The terminal as an approval surface: each pending approval is shown on stderr (arguments
 * redacted) and answered by a line on stdin: y, n, or s (for the rest of the session, where
 * offered). A closed stdin answers no; nothing is approved without an answer.
 */
export function terminalApprovals(
  ctx: CliContext,
  broker: ApprovalBroker,
  scanner: ContentScanner,
  /** Where answers come from; `pincer chat` passes its own prompt so lines are not read twice. */
  readAnswer?: () => Promise<string | undefined>,
  input: NodeJS.ReadableStream = process.stdin,
): () => void {
  let rl: Interface | undefined;
  const lines: string[] = [];
  const waiters: Array<(line: string | undefined) => void> = [];
  let closed = false;
  const ownLine = () =>
    new Promise<string | undefined>((resolve) => {
      const line = lines.shift();
      if (line !== undefined || closed) resolve(line);
      else waiters.push(resolve);
    });
  const open = () => {
    if (rl) return;
    rl = createInterface({ input, terminal: false });
    rl.on('line', (line) => {
      const waiter = waiters.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    });
    rl.on('close', () => {
      closed = true;
      for (const waiter of waiters.splice(0)) waiter(undefined);
    });
  };
  let queue = Promise.resolve();
  const nextLine = readAnswer ?? ownLine;
  const ask = async (pending: PendingApproval) => {
    if (!readAnswer) open();
    const args = argumentsLine(pending.call.input, scanner);
    const choices = pending.sessionApprovable
      ? `[y]es, [n]o, [s]ession (${scanner.redactSecrets(sessionGrantText(pending.call.name, pending.sessionScope?.label)).text} for this session)`
      : '[y]es, [n]o';
    ctx.stderr.write(
      `\nApprove ${pending.call.name} ${args}?\n  ${pending.reason}${pending.rule ? ` (rule ${pending.rule})` : ''}\n  ${choices}: `,
    );
    while (true) {
      const line = await nextLine();
      if (line === undefined) {
        ctx.stderr.write('\n  no answer (input closed): denied\n');
        broker.resolve(pending.id, 'deny', 'terminal (no answer)');
        return;
      }
      const verdict = ANSWERS[line.trim().toLowerCase()];
      if (verdict && (verdict !== 'approve-for-session' || pending.sessionApprovable)) {
        broker.resolve(pending.id, verdict, 'terminal');
        return;
      }
      ctx.stderr.write(`  ${choices}: `);
    }
  };
  // One question at a time, in the order they came.
  const off = broker.onRequest((pending) => {
    queue = queue.then(() => ask(pending));
  });
  return () => {
    off();
    rl?.close();
  };
}

/**
 * The arguments as a person judges them: secrets redacted first (so no cut can split one out
 * of sight of the redactor), then each long value abridged with its end in view.
 */
function argumentsLine(input: Record<string, unknown>, scanner: ContentScanner): string {
  const redacted = scanner.redactSecrets(JSON.stringify(input)).text;
  let value: unknown;
  try {
    value = JSON.parse(redacted);
  } catch {
    value = { arguments: redacted };
  }
  const object =
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : { arguments: redacted };
  return summarizeArguments(object, { valueChars: 400, totalChars: 2000 });
}
