/**
 * Frames of the gateway's WebSocket transport. The first client frame must be `hello` with the
 * per-launch token; after `welcome`, each `call` carries one contract channel and gets one
 * `result` with the same id. Pure module: used by the renderer's client and the core's server.
 */
import { z } from 'zod';
import { MAX_SEND_REQUEST_BYTES } from './ipc.js';
import type { Result } from './result.js';

/** Close codes (4000-4999 are the application's). */
export const WireClose = {
  unauthorized: 4401,
  badFrame: 4400,
  helloTimeout: 4408,
} as const;

/**
 * Frames over this many bytes close the connection: the largest request the contract takes (a
 * `chat.send` with images) and room for the frame around it. Each channel's own, lower limit is
 * then enforced by the dispatcher.
 */
export const MAX_FRAME_BYTES = MAX_SEND_REQUEST_BYTES + 64 * 1024;

export const ClientFrameSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('hello'), token: z.string().min(1).max(256) }),
  z.strictObject({
    type: z.literal('call'),
    id: z.number().int().nonnegative(),
    channel: z.string().max(128),
    request: z.unknown(),
  }),
]);
export type ClientFrame = z.infer<typeof ClientFrameSchema>;

export type ServerFrame =
  | { type: 'welcome' }
  /** Pushed by the core (run events, approvals, progress); payload per `AssistantEventSchema`. */
  | { type: 'event'; event: unknown }
  | {
      type: 'result';
      id: number;
      result: Result<unknown>;
    };
