/** The shape every POST route has: validate, prepare (more 400s), then run in the model's lane. */
import type { ServerResponse } from 'node:http';
import type { z } from 'zod';
import type { LocalUsage } from '../local/index.js';
import type { ModelBackend } from './backend.js';

export interface RunContext {
  backend: ModelBackend;
  res: ServerResponse;
  /** Aborts when the client disconnects. */
  signal: AbortSignal;
}

/** What the request log keeps of a run: counts and reasons, never content. */
export interface Outcome {
  usage?: LocalUsage;
  finish?: string;
}

export interface Prepared {
  model: string;
  stream: boolean;
  run(ctx: RunContext): Promise<Outcome>;
}

export interface PostRoute<T> {
  schema: z.ZodType<T>;
  prepare(body: T): Prepared;
}
