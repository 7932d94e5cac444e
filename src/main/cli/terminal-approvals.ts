import { createInterface, type Interface } from 'node:readline';
import { summarizeArguments } from '../../shared/abridge.js';
import { predictionLine } from '../../shared/format.js';
import type { RoutedApproval } from '../core/desktop/index.js';
import {
  type ApprovalBroker,
  type ApprovalVerdict,
  type ContentScanner,
  type PendingApproval,
  sessionGrantText,
} from '../core/policy/index.js';
import type { CliContext } from './context.js';

const ANSWERS: Record<string, ApprovalVerdict> = {
  y: 'approve',
  yes: 'approve',
  n: 'deny',
  no: 'deny',
  s: 'approve-for-session',
  session: 'approve-for-session',
};

/**
 * The terminal's questions (approvals, a server's forms): one line source and one queue, so two
 * questions never interleave and no line is read twice. Undefined from `nextLine`: input closed.
 */
export interface TerminalQuestions {
  nextLine(): Promise<string | undefined>;
  /** Runs `ask` once every question queued before it has been answered. */
  enqueue(ask: () => Promise<void>): void;
  close(): void;
}

export function terminalQuestions(
  /** Where answers come from; `pincer chat` passes its own prompt so lines are not read twice. */
  readAnswer?: () => Promise<string | undefined>,
  input: NodeJS.ReadableStream = process.stdin,
): TerminalQuestions {
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
  return {
    nextLine: () => {
      if (readAnswer) return readAnswer();
      open();
      return ownLine();
    },
    enqueue(ask) {
      queue = queue.then(ask).catch(() => undefined);
    },
    close() {
      rl?.close();
    },
  };
}

/**
 * The terminal as an approval surface: each pending approval is shown on stderr (arguments
 * redacted) and answered by a line on stdin: y, n, or s (for the rest of the session, where
 * offered). A closed stdin answers no; nothing is approved without an answer.
 */
export function terminalApprovals(
  ctx: CliContext,
  broker: ApprovalBroker,
  scanner: ContentScanner,
  questions: TerminalQuestions,
): () => void {
  const redact = (text: string) => scanner.redactSecrets(text).text;
  const ask = async (pending: PendingApproval) => {
    const verdict = await askApproval(ctx, pending, questions.nextLine, redact);
    if (verdict) broker.resolve(pending.id, verdict, 'terminal');
    else {
      ctx.stderr.write('\n  no answer (input closed): denied\n');
      broker.resolve(pending.id, 'deny', 'terminal (no answer)');
    }
  };
  // One question at a time, in the order they came.
  return broker.onRequest((pending) => questions.enqueue(() => ask(pending)));
}

/**
 * One approval asked on the terminal, as every line-mode surface asks it: the call, why, and the
 * answers it takes. The verdict, or undefined when `nextLine` gives no line (input closed, or
 * the caller stopped asking). `redact` screens what is shown; the broker's approvals and the
 * contract's views (already screened by the core) both fit.
 */
export async function askApproval(
  ctx: CliContext,
  pending: RoutedApproval,
  nextLine: () => Promise<string | undefined>,
  redact: (text: string) => string = (text) => text,
): Promise<ApprovalVerdict | undefined> {
  const args = argumentsLine(pending.call.input, redact);
  const scope =
    typeof pending.sessionScope === 'string' ? pending.sessionScope : pending.sessionScope?.label;
  const choices = pending.sessionApprovable
    ? `[y]es, [n]o, [s]ession (${redact(sessionGrantText(pending.call.name, scope))} for this session)`
    : '[y]es, [n]o';
  const predicted = pending.prediction ? `\n  ${redact(predictionLine(pending.prediction))}` : '';
  ctx.stderr.write(
    `\nApprove ${pending.call.name} ${args}?\n  ${pending.reason}${pending.rule ? ` (rule ${pending.rule})` : ''}${predicted}\n  ${choices}: `,
  );
  while (true) {
    const line = await nextLine();
    if (line === undefined) return undefined;
    const verdict = ANSWERS[line.trim().toLowerCase()];
    if (verdict && (verdict !== 'approve-for-session' || pending.sessionApprovable)) return verdict;
    ctx.stderr.write(`  ${choices}: `);
  }
}

/**
 * The arguments as a person judges them: secrets redacted first (so no cut can split one out
 * of sight of the redactor), then each long value abridged with its end in view.
 */
function argumentsLine(input: Record<string, unknown>, redact: (text: string) => string): string {
  const redacted = redact(JSON.stringify(input));
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
