/**
 * A2A task states in the CKP interop model's words (CKP-A2A profile §6.3), by the protocol's
 * TaskState number: written out so that naming a state does not load the SDK.
 */
const NAMES = [
  'unspecified',
  'submitted',
  'working',
  'completed',
  'failed',
  'canceled',
  'input_required',
  'rejected',
  'auth_required',
] as const;

export function stateName(state: number): string {
  return NAMES[state] ?? 'unspecified';
}
