/**
 * Best-effort scrubbing. Buffers can be overwritten; JS strings are immutable and are left to
 * the garbage collector, so secrets stay in Buffers for as long as the code allows.
 */
export function zero(...buffers: (Buffer | Uint8Array | undefined | null)[]): void {
  for (const buffer of buffers) buffer?.fill(0);
}
