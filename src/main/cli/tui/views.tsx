/** The views behind the function keys, each filling the body of the dashboard. */
import { Box, Text } from 'ink';
import { useEffect, useRef, useState } from 'react';
import type { PendingApprovalView, ResponseOf } from '../../../shared/ipc.js';
import { ActiveTools, AgentsList, MachineLine, runsWithLiveState } from './AgentsPanel.js';
import { ToolCallLine } from './ChatPane.js';
import { fieldKey, useRawInput, VIEW_KEYS } from './keys.js';
import { safe } from './safe-text.js';
import { SLASH_COMMANDS } from './slash.js';
import { callNotation, type DashboardState } from './state.js';
import type { Dashboard } from './use-dashboard.js';

const Title = ({ children }: { children: string }) => (
  <Text bold color="cyan">
    {children}
  </Text>
);

export function HelpView() {
  return (
    <Box flexDirection="column">
      <Title>Keys</Title>
      {VIEW_KEYS.map((k) => (
        <Text key={k.view}>
          {k.fkey.padEnd(4)} or Ctrl+{k.ctrl.toUpperCase()} {k.label}
        </Text>
      ))}
      <Text>Esc back to the chat · Enter sends · Alt+Enter or Ctrl+J new line · Ctrl+U clears</Text>
      <Text>PageUp/PageDown scroll the chat · Ctrl+C stops a reply, or quits when idle</Text>
      <Text> </Text>
      <Title>Commands</Title>
      {SLASH_COMMANDS.map((c) => (
        <Text key={c.name}>
          {c.usage.padEnd(16)} {c.help}
        </Text>
      ))}
      <Text>@ns/tool{'{arg="value"}'} runs a tool directly, under policy</Text>
    </Box>
  );
}

export function AgentsView({
  state,
  width,
  height,
}: {
  state: DashboardState;
  width: number;
  height: number;
}) {
  return (
    <Box flexDirection="column">
      <Title>Agents and runs</Title>
      <AgentsList
        runs={runsWithLiveState(state)}
        max={Math.max(1, height - 3)}
        width={width - 30}
      />
      <MachineLine />
    </Box>
  );
}

export function ToolsView({ state, now }: { state: DashboardState; now: number }) {
  const recent = [
    ...(state.history?.toolCalls ?? []),
    ...Object.values(state.live).flatMap(({ run }) => Object.values(run.tools)),
  ].slice(-12);
  return (
    <Box flexDirection="column">
      <Title>Active tools</Title>
      <ActiveTools state={state} now={now} />
      <Text> </Text>
      <Title>Recent calls</Title>
      {recent.length === 0 ? <Text dimColor>none yet</Text> : null}
      {recent.map((tool) => (
        <ToolCallLine key={tool.callId} tool={tool} />
      ))}
    </Box>
  );
}

export function LogsView({ state, height }: { state: DashboardState; height: number }) {
  return (
    <Box flexDirection="column">
      <Title>Events</Title>
      {state.log.length === 0 ? <Text dimColor>nothing yet</Text> : null}
      {state.log.slice(-Math.max(1, height - 1)).map((line, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a rolling log, by position
        <Text key={index} wrap="truncate-end">
          {safe(line)}
        </Text>
      ))}
    </Box>
  );
}

export function ApprovalsView({ approvals }: { approvals: PendingApprovalView[] }) {
  return (
    <Box flexDirection="column">
      <Title>Pending approvals</Title>
      {approvals.length === 0 ? <Text dimColor>none waiting</Text> : null}
      {approvals.map((a, index) => (
        <Text key={a.id} wrap="truncate-end">
          {index === 0 ? '▶ ' : '  '}
          <Text color="blue">{safe(callNotation(a.call.name, a.call.input))}</Text>{' '}
          <Text dimColor>
            {safe(a.reason)} · risk {a.tier} · run {a.runId}
          </Text>
        </Text>
      ))}
      {approvals.length > 0 ? <Text dimColor>The first one is asked below.</Text> : null}
    </Box>
  );
}

type Config = {
  info: ResponseOf<'app.getInfo'>;
  providers: ResponseOf<'providers.list'>;
  policies: ResponseOf<'policies.get'>;
  models: ResponseOf<'models.list'>;
};

/** The manifest in force as the contract shows it: model, providers, autonomy, policy rules. */
export function ConfigView({ dashboard }: { dashboard: Dashboard }) {
  const [config, setConfig] = useState<Config | null>(null);
  const { call, setNotice } = dashboard;
  useEffect(() => {
    Promise.all([
      call('app.getInfo', {}),
      call('providers.list', {}),
      call('policies.get', {}),
      call('models.list', {}),
    ]).then(
      ([info, providers, policies, models]) => setConfig({ info, providers, policies, models }),
      (error: unknown) => setNotice(error instanceof Error ? error.message : String(error)),
    );
  }, [call, setNotice]);
  if (!config) return <Text dimColor>loading…</Text>;
  const { info, providers, policies, models } = config;
  return (
    <Box flexDirection="column">
      <Title>Configuration in force</Title>
      <Text>
        {safe(info.name)} {safe(info.version)} · {info.transport} · Node {safe(info.node)} ·{' '}
        {info.platform}/{info.arch}
      </Text>
      <Text>
        Model: {safe(models.active)} ({models.kind}, {models.loaded ? 'loaded' : 'not loaded'})
      </Text>
      <Text>
        Autonomy: {policies.autonomy}
        {policies.autonomy === policies.manifestAutonomy
          ? ''
          : ` (manifest: ${policies.manifestAutonomy})`}
        {' · '}routing: {safe(providers.routing)}
      </Text>
      <Text> </Text>
      <Title>Providers</Title>
      {providers.providers.length === 0 ? <Text dimColor>none in the manifest</Text> : null}
      {providers.providers.map((p) => (
        <Text key={p.name} wrap="truncate-end">
          {safe(p.name)}: {safe(p.protocol)} {safe(p.model)} · key{' '}
          {p.hasKey ? 'present' : 'missing'}
          {p.fallback.length ? ` · then ${safe(p.fallback.join(', '))}` : ''}
        </Text>
      ))}
      <Text> </Text>
      <Title>Policy rules</Title>
      {policies.rules.map((r) => (
        <Text key={`${r.policy}.${r.id}`} wrap="truncate-end">
          {safe(r.policy)}/{safe(r.id)}: {safe(r.action)} {safe(r.scope)}
          {r.reason ? <Text dimColor> ({safe(r.reason)})</Text> : null}
        </Text>
      ))}
    </Box>
  );
}

/** Memory search over the contract: type a query, Enter searches. */
export function MemoryView({ dashboard, active }: { dashboard: Dashboard; active: boolean }) {
  const [query, setQuery] = useState('');
  const [result, setResult] = useState<ResponseOf<'memory.search'> | null>(null);
  const { call, setNotice } = dashboard;
  // The query so far in a ref: keys read before React re-renders see every earlier one. Read
  // from the raw sequences, attached as the view is drawn (see useRawInput).
  const typed = useRef('');
  useRawInput((sequence) => {
    if (!active) return;
    const key = fieldKey(sequence);
    if (key.kind === 'enter') {
      const text = typed.current.trim();
      if (text) {
        call('memory.search', { query: text }).then(setResult, (error: unknown) =>
          setNotice(error instanceof Error ? error.message : String(error)),
        );
      }
      return;
    }
    if (key.kind === 'backspace') typed.current = typed.current.slice(0, -1);
    else if (key.kind === 'text') typed.current += key.text;
    else return;
    setQuery(typed.current);
  });
  return (
    <Box flexDirection="column">
      <Title>Memory</Title>
      <Text>
        Search: {safe(query)}
        <Text inverse> </Text>
      </Text>
      {result?.note ? <Text dimColor>{safe(result.note)}</Text> : null}
      {result && result.hits.length === 0 ? <Text dimColor>no matches</Text> : null}
      {result?.hits.map((hit, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: search hits, by rank
        <Box key={index} flexDirection="column" marginTop={1}>
          <Text dimColor>
            {safe(hit.source)} · {hit.score.toFixed(3)}
          </Text>
          <Text wrap="truncate-end">{safe(hit.text.replace(/\s+/g, ' '))}</Text>
        </Box>
      ))}
    </Box>
  );
}
