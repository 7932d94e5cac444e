import {
  type ChannelName,
  type IpcErrorCode,
  type IpcResult,
  ipcContract,
  isChannelName,
  type RequestOf,
  type ResponseOf,
  requestLimit,
} from '../../../shared/ipc.js';
import { ipcCodeOf } from '../errors.js';

/** The core's implementation of every channel of the contract; transports only carry calls. */
export type IpcHandlers = {
  [C in ChannelName]: (request: RequestOf<C>) => Promise<ResponseOf<C>> | ResponseOf<C>;
};

const fail = (code: IpcErrorCode, message: string): IpcResult<never> => ({
  ok: false,
  error: { code, message },
});

/**
 * Validates one call against the contract and runs its handler.
 *
 * Shared by the Electron transport and the WebSocket gateway so both enforce the same rules:
 * unknown channels and oversized or malformed requests are refused before a handler runs, and a
 * handler's exception becomes a coded error (its message only, never a stack): a `PincerError`
 * by its category (`core/errors.ts`), anything else `internal`.
 */
export async function dispatch(
  handlers: IpcHandlers,
  channel: unknown,
  rawRequest: unknown,
): Promise<IpcResult<unknown>> {
  if (!isChannelName(channel)) {
    return fail('unknown_channel', `unknown channel: ${JSON.stringify(String(channel))}`);
  }
  let size: number;
  try {
    size = Buffer.byteLength(JSON.stringify(rawRequest ?? null), 'utf8');
  } catch {
    return fail('invalid_request', `${channel}: request is not serialisable JSON`);
  }
  const limit = requestLimit(channel);
  if (size > limit) {
    return fail('too_large', `${channel}: request is ${size} bytes, limit ${limit}`);
  }
  const spec = ipcContract[channel];
  const parsed = spec.request.safeParse(rawRequest);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
      .join('; ');
    return fail('invalid_request', `${channel}: ${issues}`);
  }
  try {
    const handler = handlers[channel] as (request: unknown) => unknown;
    const value = await handler(parsed.data);
    return { ok: true, value: spec.response.parse(value) };
  } catch (error) {
    // By type: a PincerError's category names the code; anything else is `internal`.
    return fail(
      ipcCodeOf(error),
      `${channel}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
