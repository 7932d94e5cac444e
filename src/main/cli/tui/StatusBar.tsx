/**
 * The bottom lines: link, model, context use against the window, cost, latency of the last turn
 * and the sandbox backend; then the keys. The facts are packed into as many rows as the width
 * needs (the dashboard asks `statusRows` how many before laying out the rest), so none is cut off
 * on an 80-column terminal.
 */
import { Box, Text } from 'ink';
import { Fragment } from 'react';
import { formatCost, formatDuration, formatTokens } from '../../../shared/format.js';
import type { AppInfo, ModelsState } from '../../../shared/ipc.js';
import type { LinkState } from '../../core/gateway/index.js';
import { VIEW_KEYS, type View } from './keys.js';
import { safe } from './safe-text.js';
import type { LastTurn } from './state.js';

const LINK_LABEL: Record<LinkState, string> = {
  'in-process': 'in-process',
  connected: 'attached',
  disconnected: 'disconnected from',
};

const LINK_COLOR: Record<LinkState, string> = {
  'in-process': 'green',
  connected: 'green',
  disconnected: 'red',
};

/** Cost as known: the session's figure where the model is priced, otherwise unknown. */
export function costText(models: ModelsState | null, sessionCost: number): string {
  if (sessionCost > 0) return formatCost(sessionCost);
  if (!models?.priced) return 'unknown';
  return models.kind === 'local' ? '$0 (local)' : formatCost(0);
}

/** Tokens the last model call held against the model's window: "1,234/8,192 (15%)". */
export function contextText(used: number, window: number | null): string {
  if (!window) return `${formatTokens(used)}/?`;
  return `${formatTokens(used)}/${formatTokens(window)} (${Math.round((used / window) * 100)}%)`;
}

export interface StatusFacts {
  models: ModelsState | null;
  info: AppInfo | null;
  lastTurn: LastTurn | null;
  sessionCost: number;
  link: LinkState;
  where: string;
}

interface Segment {
  text: string;
  /** Cells kept for it when packing, so the rows do not change as its figure grows. */
  reserve?: number;
  /** A state dot before the text, in this color. */
  dot?: string;
  color?: string;
}

function segments(facts: StatusFacts): Segment[] {
  const { models, info, lastTurn, link, where } = facts;
  const window = models?.contextWindow ?? null;
  return [
    // The link first: it is what a person must see when the rest is stale.
    {
      dot: LINK_COLOR[link],
      text: `${LINK_LABEL[link]}${link === 'in-process' ? '' : ` ${where.replace(/^https?:\/\//, '')}`}`,
    },
    { text: `Model: ${lastTurn?.model ?? models?.active ?? '…'}` },
    {
      text: `Tokens: ${contextText(lastTurn?.contextTokens ?? 0, window)}`,
      // As wide as a full window reads: the rows stay put while the conversation grows.
      reserve: `Tokens: ${contextText(window ?? 99_999, window)}`.length,
    },
    { text: `Cost: ${costText(models, facts.sessionCost)}` },
    {
      text: `Latency: ${formatDuration(lastTurn?.latencyMs ?? null)}`,
      reserve: 'Latency: 999 ms'.length,
    },
    {
      text: `Sandbox: ${info?.sandbox ?? '…'}`,
      // The process backend confines least: worth a glance.
      ...(info?.sandbox === 'process' ? { color: 'yellow' } : {}),
    },
  ].map((segment) => ({ ...segment, text: safe(segment.text) }));
}

const SEPARATOR = ' │ ';
const widthOf = (segment: Segment) =>
  Math.max([...segment.text].length, segment.reserve ?? 0) + (segment.dot ? 2 : 0);

/** The segments in rows of at most `width` cells, in order (a segment too long is cut). */
function pack(all: Segment[], width: number): Segment[][] {
  const room = Math.max(1, width - 2); // a space at each end
  const rows: Segment[][] = [];
  let row: Segment[] = [];
  let used = 0;
  for (const segment of all) {
    const needed = widthOf(segment) + (row.length ? SEPARATOR.length : 0);
    if (row.length && used + needed > room) {
      rows.push(row);
      row = [];
      used = 0;
    }
    row.push(segment);
    used += widthOf(segment) + (row.length > 1 ? SEPARATOR.length : 0);
  }
  if (row.length) rows.push(row);
  return rows;
}

/** How many rows the status bar takes at this width, the key bar included. */
export function statusRows(facts: StatusFacts, width: number): number {
  return pack(segments(facts), width).length + 1;
}

export function StatusBar({
  view,
  width,
  ...facts
}: StatusFacts & {
  view: View;
  width: number;
}) {
  const rows = pack(segments(facts), width);
  return (
    <Box flexDirection="column" width={width}>
      {rows.map((row, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows of the bar, by position
        <Text key={index} wrap="truncate-end" backgroundColor="blackBright">
          {' '}
          {row.map((segment, at) => (
            <Fragment key={segment.text}>
              {at > 0 ? <Text dimColor>{SEPARATOR}</Text> : null}
              {segment.dot ? <Text color={segment.dot}>● </Text> : null}
              {segment.color ? <Text color={segment.color}>{segment.text}</Text> : segment.text}
            </Fragment>
          ))}{' '}
        </Text>
      ))}
      <Text wrap="truncate-end">
        {VIEW_KEYS.map((k) => (
          <Text key={k.view} inverse={view === k.view}>
            <Text bold>[{k.fkey}]</Text>
            {k.label}{' '}
          </Text>
        ))}
        <Text dimColor>Esc chat · Ctrl+C quit</Text>
      </Text>
    </Box>
  );
}
