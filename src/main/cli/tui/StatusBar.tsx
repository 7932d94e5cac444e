/** The bottom lines: model, context use, cost, latency, link; then the keys. */
import { Box, Text } from 'ink';
import { formatCost, formatDuration, formatTokens } from '../../../shared/format.js';
import type { ModelsState } from '../../../shared/ipc.js';
import type { LinkState } from './connection.js';
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

/** Cost as known: a priced model's figure, $0 on the local engine, otherwise unknown. */
export function costText(models: ModelsState | null, sessionCost: number): string {
  if (sessionCost > 0) return formatCost(sessionCost);
  return models?.kind === 'local' ? '$0 (local)' : 'unknown';
}

export function StatusBar({
  models,
  lastTurn,
  sessionCost,
  contextWindow,
  link,
  where,
  view,
  width,
}: {
  models: ModelsState | null;
  lastTurn: LastTurn | null;
  sessionCost: number;
  contextWindow: number | null;
  link: LinkState;
  where: string;
  view: View;
  width: number;
}) {
  const model = lastTurn?.model ?? models?.active ?? '…';
  const used = lastTurn ? formatTokens(lastTurn.contextTokens) : '0';
  const window = contextWindow ? formatTokens(contextWindow) : '?';
  const sep = <Text dimColor> │ </Text>;
  return (
    <Box flexDirection="column" width={width}>
      <Text wrap="truncate-end" backgroundColor="blackBright">
        {/* The link first: on a narrow terminal it is what must not be cut off. */}{' '}
        <Text color={LINK_COLOR[link]}>●</Text> {LINK_LABEL[link]}
        {link === 'in-process' ? '' : ` ${safe(where.replace(/^https?:\/\//, ''))}`}
        {sep}Model: {safe(model)}
        {sep}Tokens: {used}/{window}
        {sep}Cost: {costText(models, sessionCost)}
        {sep}Latency: {formatDuration(lastTurn?.latencyMs ?? null)}{' '}
      </Text>
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
