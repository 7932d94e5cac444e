/**
 * The input broker: a form an MCP server asks the user to fill from inside a tool call
 * (elicitation) waits here, tied to the run that made the call, until one surface (the chat UI,
 * the terminal of `pincer run`/`chat`) answers: accept with content, decline, or cancel. The
 * first answer wins; an accepted answer that does not fit the form is refused with the reasons
 * and the request stays pending. Nobody answering within the timeout, the run being cancelled or
 * the tool call ending all cancel it.
 *
 * Like approvals, this is where every surface meets: runs subscribe to emit their
 * `input.requested` / `input.resolved` events (the audit records those: action and field names,
 * never the values).
 */
import { EventEmitter } from 'node:events';
import { newId, type RunId, type SessionId } from '../terms.js';
import { DEFAULT_APPROVAL_TIMEOUT_MS } from './broker.js';
import type { InputEvents } from './hooks.js';
import {
  checkInputAnswer,
  type InputContent,
  type InputField,
  type InputForm,
  prepareAnswerCheck,
} from './input-form.js';

export type InputAnswer =
  | { action: 'accept'; content: InputContent }
  | { action: 'decline' }
  | { action: 'cancel' };

export interface InputOutcome {
  answer: InputAnswer;
  /** Who answered ('timeout' when nobody did, 'cancelled' when the call or run ended). */
  by: string;
  timedOut?: boolean;
}

export interface InputRequest {
  runId: RunId;
  /** The tool call in flight that asked, and its tool, where known. */
  callId?: string;
  tool?: string;
  /** Who asks: the MCP server's name (or its manifest mcp_source). */
  source: string;
  form: InputForm;
  /** The tool call's signal: aborted (run cancelled, call over), the request is cancelled. */
  signal: AbortSignal;
}

/** What a surface shows. */
export interface PendingInput {
  id: string;
  runId: RunId;
  sessionId: SessionId;
  callId?: string;
  tool?: string;
  source: string;
  message: string;
  fields: InputField[];
  /** The form asks for a password, key or other secret: show `warning` with it. */
  sensitive?: true;
  warning?: string;
  expiresAt: string;
}

export type InputResolveResult =
  | { result: 'resolved' | 'unknown' | 'already_resolved' }
  | { result: 'invalid'; errors: string[] };

interface Waiting {
  pending: PendingInput;
  form: InputForm;
  settle: (outcome: InputOutcome) => void;
}

export interface InputBrokerOptions {
  /** The session a run belongs to (the run store knows). */
  sessionOf: (runId: RunId) => SessionId | undefined;
  /** How long a person has to answer (default: the approvals' default). */
  timeoutMs?: number;
}

export class InputBroker implements InputEvents {
  private readonly waiting = new Map<string, Waiting>();
  private readonly finished = new Set<string>();
  private readonly emitter = new EventEmitter();

  constructor(private readonly options: InputBrokerOptions) {}

  get timeoutMs(): number {
    return this.options.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
  }

  onRequest(listener: (pending: PendingInput) => void): () => void {
    this.emitter.on('request', listener);
    return () => this.emitter.off('request', listener);
  }

  onResolved(listener: (pending: PendingInput, outcome: InputOutcome) => void): () => void {
    this.emitter.on('resolved', listener);
    return () => this.emitter.off('resolved', listener);
  }

  pending(): PendingInput[] {
    return [...this.waiting.values()].map((w) => w.pending);
  }

  /** Resolves once answered, timed out or cancelled; never rejects. */
  async request(request: InputRequest): Promise<InputOutcome> {
    const id = newId<string>('inp');
    const sessionId = this.options.sessionOf(request.runId);
    if (!sessionId || request.signal.aborted)
      return { answer: { action: 'cancel' }, by: 'cancelled' };
    // Before the form is shown: an answer can then be checked the moment it comes.
    await prepareAnswerCheck();
    if (request.signal.aborted) return { answer: { action: 'cancel' }, by: 'cancelled' };
    const pending: PendingInput = {
      id,
      runId: request.runId,
      sessionId,
      ...(request.callId ? { callId: request.callId } : {}),
      ...(request.tool ? { tool: request.tool } : {}),
      source: request.source,
      message: request.form.message,
      fields: request.form.fields,
      ...(request.form.sensitive
        ? { sensitive: true as const, warning: request.form.warning }
        : {}),
      expiresAt: new Date(Date.now() + this.timeoutMs).toISOString(),
    };
    return new Promise<InputOutcome>((resolve) => {
      const timer = setTimeout(
        () => this.finish(id, { answer: { action: 'cancel' }, by: 'timeout', timedOut: true }),
        this.timeoutMs,
      );
      const onAbort = () => this.finish(id, { answer: { action: 'cancel' }, by: 'cancelled' });
      request.signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(id, {
        pending,
        form: request.form,
        settle: (outcome) => {
          clearTimeout(timer);
          request.signal.removeEventListener('abort', onAbort);
          resolve(outcome);
        },
      });
      this.emitter.emit('request', pending);
    });
  }

  /**
   * An answer from a surface; `by` names who answered ("terminal", "ui"). An accepted answer is
   * checked against the form first: one that does not fit changes nothing.
   */
  resolve(id: string, answer: InputAnswer, by: string): InputResolveResult {
    const waiting = this.waiting.get(id);
    if (!waiting) return { result: this.finished.has(id) ? 'already_resolved' : 'unknown' };
    if (answer.action === 'accept') {
      const errors = checkInputAnswer(waiting.form, answer.content);
      if (errors.length > 0) return { result: 'invalid', errors };
    }
    this.finish(id, { answer, by });
    return { result: 'resolved' };
  }

  private finish(id: string, outcome: InputOutcome): void {
    const waiting = this.waiting.get(id);
    if (!waiting) return;
    this.waiting.delete(id);
    this.finished.add(id);
    waiting.settle(outcome);
    this.emitter.emit('resolved', waiting.pending, outcome);
  }
}
