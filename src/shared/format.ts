/** Small display helpers: numbers, money, durations, sizes, times. */

export const formatTokens = (n: number) =>
  n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : n.toLocaleString('en-US');

export const formatCost = (usd: number) =>
  usd === 0 ? '$0' : usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

export function formatTime(iso: string): string {
  const date = new Date(iso);
  const today = new Date();
  return date.toDateString() === today.toDateString()
    ? date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
    : date.toLocaleDateString([], { month: 'short', day: 'numeric' });
}

export const errorText = (error: unknown) =>
  error instanceof Error ? error.message : String(error);

/** Arguments as compact, readable JSON. */
export const prettyJson = (value: unknown) => JSON.stringify(value, null, 2);

/**
 * Where a background run came from, for people: "schedule daily-brief (0 8 * * *)", "queue jobs
 * (agent.tasks) · message JOBS/12/...", or "phone (telegram) · chat 42 · user 123 (admin)".
 */
export function formatOrigin(origin: {
  channel: string;
  type: string;
  userId?: string;
  chatId?: string;
  schedule?: string;
  queue?: string;
  message?: string;
  role?: string;
}): string {
  if (origin.schedule !== undefined) {
    return `schedule ${origin.channel}${origin.schedule ? ` (${origin.schedule})` : ''}`;
  }
  if (origin.queue !== undefined) {
    const message = origin.message ? ` · message ${origin.message}` : '';
    return `queue ${origin.channel} (${origin.queue})${message}`;
  }
  const parts = [
    origin.type && origin.type !== origin.channel
      ? `${origin.channel} (${origin.type})`
      : origin.channel,
  ];
  if (origin.chatId !== undefined && origin.chatId !== origin.userId)
    parts.push(`chat ${origin.chatId}`);
  if (origin.userId !== undefined) {
    parts.push(`user ${origin.userId}${origin.role ? ` (${origin.role})` : ''}`);
  }
  return parts.join(' · ');
}

/** A world model's prediction in one line, as every surface shows it beside an approval. */
export function predictionLine(prediction: {
  worldModel: string;
  summary: string;
  risk: string;
  cost?: string;
  unavailable?: string;
}): string {
  if (prediction.unavailable)
    return `Predicted by ${prediction.worldModel}: no prediction (${prediction.unavailable})`;
  const risk = prediction.risk !== 'unknown' ? ` · ${prediction.risk} risk` : '';
  const cost = prediction.cost ? ` · cost ${prediction.cost}` : '';
  return `Predicted by ${prediction.worldModel}: ${prediction.summary}${risk}${cost}`;
}
