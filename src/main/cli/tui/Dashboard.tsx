/**
 * The terminal dashboard (issue 26, after seed 000's sketch): chat with tool calls inline, agents
 * and active tools beside it, the pending approval above the input, a status bar and function-key
 * views. A client of the IPC contract only: it gets a `CoreLink` and never sees the core.
 */
import { Box, Text, useApp, useInput, useStdout } from 'ink';
import { useEffect, useMemo, useState } from 'react';
import type { CoreLink } from '../../core/gateway/index.js';
import { AgentsPanel } from './AgentsPanel.js';
import { ApprovalPrompt, PROMPT_ROWS, previewLines } from './ApprovalPrompt.js';
import { ChatPane } from './ChatPane.js';
import { MIN_ROWS } from './fits.js';
import { InputBox } from './InputBox.js';
import { useRawInput, type View, viewForCtrl, viewForKey } from './keys.js';
import { StatusBar, type StatusFacts, statusRows } from './StatusBar.js';
import { safe } from './safe-text.js';
import { parseSlash } from './slash.js';
import { type Dashboard, useDashboard } from './use-dashboard.js';
import {
  AgentsView,
  ApprovalsView,
  ConfigView,
  HelpView,
  LogsView,
  MemoryView,
  ToolsView,
} from './views.js';

/** The side panel appears from this width. */
const SIDE_FROM = 100;
const SIDE_WIDTH = 38;

function useTerminalSize(): { columns: number; rows: number } {
  const { stdout } = useStdout();
  const read = () => ({ columns: stdout.columns || 80, rows: stdout.rows || 24 });
  const [size, setSize] = useState(read);
  useEffect(() => {
    const onResize = () => setSize(read());
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  });
  return size;
}

export function DashboardApp({
  link,
  sessionId = null,
}: {
  link: CoreLink;
  sessionId?: string | null;
}) {
  const dashboard = useDashboard(link, sessionId);
  const { state, models, info } = dashboard;
  const { exit } = useApp();
  const { columns, rows } = useTerminalSize();
  const [view, setView] = useState<View>('chat');
  const [scroll, setScroll] = useState(0);
  const [deferred, setDeferred] = useState<ReadonlySet<string>>(new Set());
  const [now, setNow] = useState(() => performance.now());

  const liveHere = Object.values(state.live).filter((e) => e.sessionId === state.sessionId);
  const busy = liveHere.some((e) => !e.run.finished);
  const toolsRunning = Object.keys(state.toolStarts).length > 0;
  useEffect(() => {
    if (!toolsRunning) return;
    const timer = setInterval(() => setNow(performance.now()), 500);
    return () => clearInterval(timer);
  }, [toolsRunning]);

  const approval =
    view === 'approvals'
      ? state.approvals[0]
      : state.approvals.find((a) => !deferred.has(a.id) && view === 'chat');

  useRawInput((sequence) => {
    const target = viewForKey(sequence);
    if (target) setView((current) => (current === target ? 'chat' : target));
  });
  useInput((input, key) => {
    if (key.ctrl && input === 'c') {
      if (busy) void dashboard.cancel();
      else exit();
      return;
    }
    if (key.ctrl) {
      const target = viewForCtrl(input);
      if (target) setView((current) => (current === target ? 'chat' : target));
      return;
    }
    if (key.escape && view !== 'chat') setView('chat');
    else if (key.pageUp) setScroll((s) => s + Math.max(1, rows - 10));
    else if (key.pageDown) setScroll((s) => Math.max(0, s - Math.max(1, rows - 10)));
  });

  const submit = (text: string) => {
    setScroll(0);
    const command = parseSlash(text);
    if (!command) {
      void dashboard.send(text);
      return;
    }
    switch (command.kind) {
      case 'new':
        return dashboard.openSession(null);
      case 'session':
        return dashboard.openSession(command.sessionId);
      case 'model':
        return void selectModel(dashboard, command.name).then(
          (label) => dashboard.setNotice(`model: ${label}`),
          (error: unknown) =>
            dashboard.setNotice(error instanceof Error ? error.message : String(error)),
        );
      case 'cancel':
        return void dashboard.cancel();
      case 'help':
        return setView('help');
      case 'exit':
        return exit();
      case 'unknown':
        return dashboard.setNotice(`unknown command ${command.text} (/help lists them)`);
    }
  };

  const sessionCost = useMemo(() => {
    const stored = state.history?.runs ?? [];
    const storedIds = new Set(stored.map((r) => r.id));
    return (
      stored.reduce((sum, r) => sum + r.costUsd, 0) +
      liveHere.filter((e) => !storedIds.has(e.run.runId)).reduce((s, e) => s + e.run.costUsd, 0)
    );
  }, [state.history, liveHere]);

  const facts: StatusFacts = {
    models,
    info,
    lastTurn: state.lastTurn,
    sessionCost,
    link: dashboard.link,
    where: link.where,
  };
  const height = Math.max(MIN_ROWS, rows) - 1;
  const side = columns >= SIDE_FROM && view === 'chat';
  const inputLines = 4;
  // The preview gets what a short terminal can spare: 2 lines at 24 rows, 6 from 43.
  const previewRows = Math.max(0, Math.min(6, Math.floor(height / 6) - 1));
  const approvalHeight = approval
    ? PROMPT_ROWS + previewLines(approval.preview, previewRows).length
    : 0;
  const noticeHeight = dashboard.notice ? 1 : 0;
  const statusHeight = statusRows(facts, columns);
  const bodyHeight = Math.max(
    3,
    height - 1 - (inputLines + 2) - statusHeight - approvalHeight - noticeHeight,
  );
  const mainWidth = side ? columns - SIDE_WIDTH : columns;
  const settings = useMemo(() => ({ showReasoning: true }), []);
  const live = liveHere
    .filter((e) => !(e.run.finished && state.history?.runs.some((r) => r.id === e.run.runId)))
    .map((e) => e.run);

  return (
    <Box flexDirection="column" width={columns} height={height}>
      <Text wrap="truncate-end">
        <Text bold color="cyan">
          {safe(info ? `${info.name} ${info.version}` : 'Pincer')}
        </Text>
        <Text dimColor>
          {' · '}
          {state.history ? safe(state.history.session.title) : 'new conversation'}
        </Text>
        {state.approvals.length > 0 ? (
          <Text color="yellow"> · {state.approvals.length} approval(s) waiting</Text>
        ) : null}
        <Text dimColor>
          {' · '}runs live: {Object.values(state.live).filter((e) => !e.run.finished).length}
        </Text>
      </Text>
      <Box height={bodyHeight} flexDirection="row">
        <Box width={mainWidth} flexDirection="column" paddingX={1}>
          {view === 'chat' || view === 'approvals' ? null : (
            <Box flexDirection="column" height={bodyHeight} overflow="hidden">
              {view === 'help' ? <HelpView /> : null}
              {view === 'agents' ? (
                <AgentsView state={state} width={columns} height={bodyHeight} />
              ) : null}
              {view === 'tools' ? <ToolsView state={state} now={now} /> : null}
              {view === 'memory' ? <MemoryView dashboard={dashboard} active /> : null}
              {view === 'logs' ? <LogsView state={state} height={bodyHeight} /> : null}
              {view === 'config' ? <ConfigView dashboard={dashboard} /> : null}
            </Box>
          )}
          {view === 'approvals' ? <ApprovalsView approvals={state.approvals} /> : null}
          {view === 'chat' ? (
            <ChatPane
              messages={state.history?.messages ?? []}
              toolCalls={state.history?.toolCalls ?? []}
              live={live}
              showReasoning={settings.showReasoning}
              height={bodyHeight}
              scroll={scroll}
            />
          ) : null}
        </Box>
        {side ? (
          <AgentsPanel state={state} now={now} width={SIDE_WIDTH} height={bodyHeight} />
        ) : null}
      </Box>
      {approval ? (
        <ApprovalPrompt
          key={approval.id}
          approval={approval}
          waiting={state.approvals.length - 1}
          previewRows={previewRows}
          active
          onAnswer={(verdict, reason) => void dashboard.resolve(approval.id, verdict, reason)}
          onDefer={() => setDeferred((d) => new Set([...d, approval.id]))}
        />
      ) : null}
      {dashboard.notice ? (
        <Text color="yellow" wrap="truncate-end">
          {safe(dashboard.notice)}
        </Text>
      ) : null}
      <InputBox
        active={view === 'chat' && !approval}
        busy={busy}
        onSubmit={submit}
        width={columns}
        maxLines={inputLines}
      />
      <StatusBar {...facts} view={view} width={columns} />
    </Box>
  );
}

/** `/model NAME`: the picker's option with that id, label or source (a provider's name). */
async function selectModel(dashboard: Pick<Dashboard, 'call'>, name: string): Promise<string> {
  const { options } = await dashboard.call('models.list', {});
  const option =
    options.find((candidate) => candidate.id === name) ??
    options.find((candidate) => candidate.label === name || candidate.source === name);
  if (!option)
    throw new Error(
      `no model "${name}" (${options.map((candidate) => candidate.label).join(', ')})`,
    );
  await dashboard.call('models.select', { id: option.id });
  return option.label;
}
