/**
 * Compaction (seed 004 "rolling summarization with race protection"): when a session's
 * history passes a share of the context window (85% by default), the older turns are summarized
 * with the current model, in the background. Each summary is a new epoch of the session; a
 * summary started at epoch N is written only if the session is still at epoch N when it
 * finishes, so a slow, stale summary never overwrites a newer one. Nothing is deleted: the
 * summarized messages stay in the runs store, and `view` shows where the summary stands in.
 */
import { type ContentBlock, type Message, textOf, userText } from '../../../shared/messages.js';
import { IMAGE_TOKEN_ESTIMATE, type ModelAccess } from '../models/index.js';
import type { HistoryEntry, HistoryShaper } from '../runtime/index.js';
import { type Db, prepared } from '../storage/index.js';
import { estimateTokens } from './context.js';

export type { HistoryEntry } from '../runtime/index.js';

export interface Summary {
  sessionId: string;
  epoch: number;
  /** The last message the summary covers (inclusive). */
  coversUntil: string;
  covered: number;
  summary: string;
  createdAt: string;
}

export type CompactionOutcome =
  | { status: 'not_needed'; tokens: number; threshold: number }
  | { status: 'compacted'; summary: Summary }
  /** Another compaction committed first; this one's work was dropped. */
  | { status: 'stale'; startedAt: number; now: number };

export interface CompactorOptions {
  /** Turns messages (after an earlier summary, if any) into a summary. */
  summarize: (messages: readonly Message[], previous?: string) => Promise<string>;
  countTokens?: (text: string) => number;
  /** Share of the window that triggers compaction. */
  threshold?: number;
  /** Newest messages always kept verbatim. */
  keepRecent?: number;
  now?: () => Date;
}

export class Compactor {
  private readonly count: (text: string) => number;
  /**
   * Counted once per message: a session's history is the same objects turn after turn (the
   * run store hands out frozen, shared branches), and counting all of it again each turn grew
   * with the conversation.
   */
  private readonly counted = new WeakMap<Message, number>();

  constructor(
    private readonly db: Db,
    private readonly options: CompactorOptions,
  ) {
    this.count = options.countTokens ?? estimateTokens;
  }

  /** The session's current epoch (0: never compacted). */
  epoch(sessionId: string): number {
    return (
      (
        prepared(this.db, 'select max(epoch) as e from memory_summaries where session_id = ?').get(
          sessionId,
        ) as { e: number | null }
      ).e ?? 0
    );
  }

  latest(sessionId: string): Summary | undefined {
    const row = prepared(
      this.db,
      'select * from memory_summaries where session_id = ? order by epoch desc limit 1',
    ).get(sessionId) as
      | {
          session_id: string;
          epoch: number;
          covers_until: string;
          covered: number;
          summary: string;
          created_at: string;
        }
      | undefined;
    return row
      ? {
          sessionId: row.session_id,
          epoch: row.epoch,
          coversUntil: row.covers_until,
          covered: row.covered,
          summary: row.summary,
          createdAt: row.created_at,
        }
      : undefined;
  }

  /** What a model should see: the latest summary, then the messages it does not cover. */
  view(sessionId: string, history: readonly HistoryEntry[]): Message[] {
    const summary = this.latest(sessionId);
    const at = summary ? history.findIndex((h) => h.id === summary.coversUntil) : -1;
    if (!summary || at < 0) return history.map((h) => h.message);
    return [
      userText(`[Summary of the earlier conversation]\n${summary.summary}`),
      ...history.slice(at + 1).map((h) => h.message),
    ];
  }

  /** Text as the tokenizer counts it; each image at a fixed estimate, never its base64. */
  tokens(messages: readonly Message[]): number {
    return messages.reduce((n, m) => n + this.tokensOf(m), 0);
  }

  private tokensOf(message: Message): number {
    let tokens = this.counted.get(message);
    if (tokens === undefined) {
      const images = message.content.filter((b) => b.type === 'image').length;
      tokens = this.count(JSON.stringify(textual(message.content))) + images * IMAGE_TOKEN_ESTIMATE;
      this.counted.set(message, tokens);
    }
    return tokens;
  }

  /** Summarizes the older turns if the history's view is over the threshold. */
  async maybeCompact(
    sessionId: string,
    history: readonly HistoryEntry[],
    contextWindow: number,
  ): Promise<CompactionOutcome> {
    const threshold = Math.floor(contextWindow * (this.options.threshold ?? 0.85));
    const tokens = this.tokens(this.view(sessionId, history));
    if (tokens <= threshold) return { status: 'not_needed', tokens, threshold };
    const startedAt = this.epoch(sessionId);
    const previous = this.latest(sessionId);
    const from = previous ? history.findIndex((h) => h.id === previous.coversUntil) + 1 : 0;
    const keep = this.options.keepRecent ?? 4;
    const older = history.slice(from, Math.max(from, history.length - keep));
    if (older.length === 0) return { status: 'not_needed', tokens, threshold };
    const text = await this.options.summarize(
      older.map((h) => h.message),
      previous?.summary,
    );
    const last = older.at(-1) as HistoryEntry;
    const summary: Summary = {
      sessionId,
      epoch: startedAt + 1,
      coversUntil: last.id,
      covered: (previous?.covered ?? 0) + older.length,
      summary: text,
      createdAt: (this.options.now ?? (() => new Date()))().toISOString(),
    };
    // The epoch check and the write are one transaction: nothing can slip in between.
    const written = this.db.transaction(() => {
      const now = this.epoch(sessionId);
      if (now !== startedAt) return { status: 'stale' as const, startedAt, now };
      prepared(
        this.db,
        `insert into memory_summaries (session_id, epoch, covers_until, covered, summary, created_at)
           values (?, ?, ?, ?, ?, ?)`,
      ).run(
        sessionId,
        summary.epoch,
        summary.coversUntil,
        summary.covered,
        summary.summary,
        summary.createdAt,
      );
      return { status: 'compacted' as const, summary };
    })();
    return written;
  }
}

/** A summarizer that asks the session's own model. */
export function summarizeWith(model: ModelAccess, maxTokens = 512): CompactorOptions['summarize'] {
  return async (messages, previous) => {
    const transcript = messages
      .map((m) => {
        const images = m.content.filter((b) => b.type === 'image').length;
        const text = textOf(m) || JSON.stringify(textual(m.content, '[image]'));
        return `${m.role}: ${images > 0 && textOf(m) ? `[${images} image(s)] ` : ''}${text}`;
      })
      .join('\n');
    const turn = model.turn({
      system:
        'Summarize the conversation below for your own later use: facts, decisions, open tasks. Be brief.',
      messages: [
        userText(
          `${previous ? `Summary so far:\n${previous}\n\n` : ''}Conversation:\n${transcript}`,
        ),
      ],
      maxTokens,
      temperature: 0,
    });
    let text = '';
    for await (const event of turn.events) {
      if (event.type === 'text_delta') text += event.text;
      if (event.type === 'connection_lost') throw event.error;
    }
    return text.trim();
  };
}

/**
 * The runtime's history hook over a compactor: the model sees the latest summary in place of
 * the turns it covers, and after each reply the session is compacted in the background when
 * it has grown past the threshold (one compaction per session at a time; a failure only means
 * the next reply tries again).
 */
export function compactingHistory(
  compactor: Compactor,
  /** Read after each reply when a function (the local context size is a setting). */
  contextWindow: number | (() => number),
  onOutcome?: (
    sessionId: string,
    outcome: CompactionOutcome | { status: 'failed'; error: string },
  ) => void,
): HistoryShaper {
  const running = new Map<string, Promise<void>>();
  return {
    view: (sessionId, entries) => compactor.view(sessionId, entries),
    afterTurn(sessionId, entries) {
      if (running.has(sessionId)) return;
      const work = compactor
        .maybeCompact(
          sessionId,
          entries,
          typeof contextWindow === 'function' ? contextWindow() : contextWindow,
        )
        .then(
          (outcome) => onOutcome?.(sessionId, outcome),
          (error: unknown) =>
            onOutcome?.(sessionId, { status: 'failed', error: (error as Error).message }),
        )
        .finally(() => running.delete(sessionId));
      running.set(sessionId, work);
    },
  };
}

/** Content without image bytes: an image left out, or as `placeholder` where one is given. */
function textual(content: readonly ContentBlock[], placeholder?: string): ContentBlock[] {
  return content.flatMap((block): ContentBlock[] => {
    if (block.type === 'image') return placeholder ? [{ type: 'text', text: placeholder }] : [];
    if (block.type === 'tool_result' && typeof block.content !== 'string') {
      return [
        {
          ...block,
          content: block.content.map((part) =>
            part.type === 'image' ? { type: 'text' as const, text: placeholder ?? '' } : part,
          ),
        },
      ];
    }
    return [block];
  });
}
