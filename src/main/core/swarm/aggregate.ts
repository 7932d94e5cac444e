/**
 * How a swarm's reports become one answer (CKP §5.9 `aggregation.strategy`). majority-vote and
 * merge need nobody; best-of-n and leader-decides ask the leader (an agent run, see worker.ts).
 */
import type { SwarmReport } from './types.js';

export type AggregationStrategy =
  | 'leader-decides'
  | 'majority-vote'
  | 'merge'
  | 'chain'
  | 'best-of-n';

/** The leader's judgement: pick a candidate, or write the answer from them. */
export interface Leader {
  pick(goal: string, candidates: readonly string[]): Promise<number>;
  decide(goal: string, candidates: readonly string[]): Promise<string>;
}

export interface Aggregate {
  answer: string;
  /** majority-vote: answers (normalized) and their counts, most first. */
  votes?: Array<{ answer: string; count: number }>;
  /** best-of-n: the index (into the completed reports) the leader chose. */
  chosen?: number;
}

/** Answers compare without case, surrounding space or a final full stop. */
export function normalizeAnswer(text: string): string {
  return text
    .trim()
    .replace(/\s+/g, ' ')
    .replace(/[.!]+$/, '')
    .toLowerCase();
}

export async function aggregate(
  strategy: AggregationStrategy,
  goal: string,
  reports: readonly SwarmReport[],
  leader?: Leader,
): Promise<Aggregate> {
  const answers = reports.filter((r) => r.status === 'completed').map((r) => r.result);
  if (answers.length === 0) return { answer: '' };
  switch (strategy) {
    case 'majority-vote': {
      const counts = new Map<string, { answer: string; count: number }>();
      for (const answer of answers) {
        const key = normalizeAnswer(answer);
        const entry = counts.get(key) ?? { answer: answer.trim(), count: 0 };
        entry.count++;
        counts.set(key, entry);
      }
      // Ties go to the answer seen first (reports are in dispatch order).
      const votes = [...counts.values()].sort((a, b) => b.count - a.count);
      return { answer: votes[0]?.answer ?? '', votes };
    }
    case 'best-of-n': {
      if (answers.length === 1 || !leader) return { answer: answers[0] as string, chosen: 0 };
      const picked = await leader.pick(goal, answers);
      const chosen =
        Number.isInteger(picked) && picked >= 0 && picked < answers.length ? picked : 0;
      return { answer: answers[chosen] as string, chosen };
    }
    case 'leader-decides':
      return { answer: leader ? await leader.decide(goal, answers) : (answers[0] as string) };
    case 'merge':
      return { answer: answers.join('\n\n---\n\n') };
    case 'chain':
      return { answer: answers.at(-1) as string };
  }
}
