/**
 * Finding, keeping, restoring and warming the evaluated system-and-tools prefix, so a new
 * conversation starts past it: idle sequences, in-memory copies, state files.
 */
import type { ChatModelFunctions, LlamaChat, LlamaContextSequence, Token } from 'node-llama-cpp';
import { toChatHistory } from './history.js';
import type { Conversation, Loaded } from './loaded-model.js';
import { type PrefixStateStore, prefixHash } from './prefix-store.js';

/** node-llama-cpp's own in-memory copy between sequences of a context (not in its typings). */
interface CopyingSequence {
  _copyStateFromOtherSequence?: (other: LlamaContextSequence, upTo: number) => Promise<boolean>;
}

/** The system text and tools whose prefix was last used: warmed when a model loads. */
export interface PrefixSource {
  system?: string;
  functions?: ChatModelFunctions;
}

/** Shorter prefixes are not worth a state file: evaluating them is as quick as loading one. */
export const MIN_KEPT_PREFIX = 32;
const PREFIX_MEMO_SIZE = 8;

/** Fills a free sequence with the last used prefix (from disk where it can) as an idle one. */
export async function warmIdle(
  loaded: Loaded,
  source: PrefixSource | undefined,
  store: PrefixStateStore | undefined,
  conversations: ReadonlyMap<string, Conversation>,
): Promise<void> {
  try {
    let tokens: Token[] | undefined;
    let hash: string | undefined;
    if (source) {
      tokens = prefixTokens(loaded, loaded.wrapper, source.system, source.functions);
      if (tokens.length < MIN_KEPT_PREFIX) return;
    } else {
      hash = await store?.latest(loaded.identity);
      if (!hash) return;
    }
    if (loaded.idle.some((idle) => (tokens ? covers(idle, tokens) : idle.contextTokens.length)))
      return;
    if (loaded.idle.length === 0 && loaded.context.sequencesLeft === 0) return;
    const sequence = loaded.idle.pop() ?? loaded.context.getSequence();
    try {
      if (tokens) await fill(sequence, loaded, tokens, store, conversations);
      else if (hash) await store?.restore(sequence, loaded.identity, hash);
    } finally {
      loaded.idle.push(sequence);
    }
  } catch {
    // Warming is a head start only: the request evaluates whatever is missing.
  }
}

/**
 * Makes `sequence` hold `prefix`: as it is when it already does, else from its state file,
 * else evaluated alone (then saved, so it holds not a word of any conversation).
 */
export async function fill(
  sequence: LlamaContextSequence,
  loaded: Loaded,
  prefix: Token[],
  store: PrefixStateStore | undefined,
  conversations: ReadonlyMap<string, Conversation>,
): Promise<void> {
  if (covers(sequence, prefix)) return;
  await clearSequence(sequence);
  if (await copyPrefix(sequence, loaded, prefix, conversations)) return;
  if (await store?.restore(sequence, loaded.identity, prefixHash(prefix), prefix)) return;
  await sequence.evaluateWithoutGeneratingNewTokens(prefix);
  await store?.save(sequence, loaded.identity).catch(() => undefined);
}

/** Copies `prefix` into `target` from a sequence that holds it and is not evaluating. */
async function copyPrefix(
  target: LlamaContextSequence,
  loaded: Loaded,
  prefix: Token[],
  conversations: ReadonlyMap<string, Conversation>,
): Promise<boolean> {
  const copy = (target as unknown as CopyingSequence)._copyStateFromOtherSequence;
  if (typeof copy !== 'function') return false;
  const holders = [
    ...loaded.idle,
    ...[...conversations.values()]
      .filter((conversation) => conversation.loaded === loaded && !conversation.busy)
      .map((conversation) => conversation.sequence),
  ];
  const from = holders.find((holder) => holder !== target && covers(holder, prefix));
  if (!from) return false;
  try {
    if ((await copy.call(target, from, prefix.length)) && covers(target, prefix)) return true;
  } catch {
    // Left to the slower ways below.
  }
  await target.clearHistory();
  return false;
}

/**
 * The tokens every conversation with this system text and these tools starts with: where
 * two renderings that differ only in the user's words part. Whatever the chat format writes
 * there (identity, tool definitions in any form) is the prefix.
 */
export function prefixTokens(
  loaded: Loaded,
  wrapper: LlamaChat['chatWrapper'],
  system: string | undefined,
  functions: ChatModelFunctions | undefined,
): Token[] {
  const key = JSON.stringify([system ?? null, functions ?? null]);
  const known = loaded.prefixes.get(key);
  if (known) return known;
  const render = (text: string) =>
    wrapper
      .generateContextState({
        chatHistory: toChatHistory(system, [{ role: 'user', text }]),
        availableFunctions: functions,
      })
      .contextText.tokenize(loaded.model.tokenizer);
  const a = render('a');
  const b = render('b');
  let same = 0;
  while (same < a.length && a[same] === b[same]) same++;
  const tokens = a.slice(0, same);
  for (const oldest of loaded.prefixes.keys()) {
    if (loaded.prefixes.size < PREFIX_MEMO_SIZE) break;
    loaded.prefixes.delete(oldest);
  }
  loaded.prefixes.set(key, tokens);
  return tokens;
}

/** Whether the sequence's evaluated tokens start with all of `prefix`. */
function covers(sequence: LlamaContextSequence, prefix: readonly Token[]): boolean {
  return (
    sequence.contextTokens.length >= prefix.length &&
    sequence.compareContextTokens(prefix as Token[]).firstDifferentIndex >= prefix.length
  );
}

/**
 * Empties a sequence taken for a new conversation. All or nothing: a prefix is always evaluated
 * whole, so every conversation that starts from it sees the same numbers (one that reused part
 * of another's tokens would differ in the last bits, and sampling with them).
 */
export async function clearSequence(sequence: LlamaContextSequence): Promise<void> {
  if (sequence.nextTokenIndex > 0) await sequence.clearHistory();
}

/**
 * Returns a closed conversation's sequence to the idle ones, cut back to its fixed prefix (none
 * of the conversation stays in memory), for the next new conversation to start from.
 */
export async function keepIdle(conversation: Conversation): Promise<void> {
  const { sequence, prefix, loaded } = conversation;
  if (sequence.disposed) return;
  try {
    if (prefix && prefix.length >= MIN_KEPT_PREFIX && covers(sequence, prefix)) {
      if (sequence.nextTokenIndex > prefix.length)
        await sequence.eraseContextTokenRanges([
          { start: prefix.length, end: sequence.nextTokenIndex },
        ]);
    } else await sequence.clearHistory();
    loaded.idle.push(sequence);
  } catch {
    sequence.dispose();
  }
}
