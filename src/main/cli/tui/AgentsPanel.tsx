/**
 * Runs as agents: every run with its state from the run state machine, sub-agents under the run
 * that started them, and where each came from (chat, a channel, a schedule). Also the tools
 * running now with their elapsed time, and this machine's load and memory.
 */
import os from 'node:os';
import { Box, Text } from 'ink';
import { formatDuration } from '../../../shared/format.js';
import type { RunSummary } from '../../../shared/ipc.js';
import type { RunOriginView } from '../../../shared/ipc-schemas.js';
import { toolDisplayName } from '../../../shared/messages.js';
import { safe } from './safe-text.js';
import type { DashboardState } from './state.js';

const STATE_COLOR: Record<string, string> = {
  PLANNING: 'yellow',
  EXECUTING: 'cyan',
  WAITING_APPROVAL: 'yellow',
  COMPLETED: 'green',
  FAILED: 'red',
  CANCELLED: 'gray',
};

export interface AgentNode {
  run: RunSummary;
  children: AgentNode[];
}

/** Runs as a forest: each under its parent when the parent is listed, live ones first. */
export function agentTree(runs: RunSummary[]): AgentNode[] {
  const nodes = new Map(runs.map((run) => [run.id, { run, children: [] as AgentNode[] }]));
  const roots: AgentNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.run.parentRunId ? nodes.get(node.run.parentRunId) : undefined;
    (parent ? parent.children : roots).push(node);
  }
  return roots.sort((a, b) => Number(b.run.live) - Number(a.run.live));
}

/** The stored runs, with the state of the ones streaming now taken from their events. */
export function runsWithLiveState(state: DashboardState): RunSummary[] {
  return state.runs.map((run) => {
    const live = state.live[run.id];
    return live ? { ...run, state: live.run.state, live: !live.run.finished } : run;
  });
}

/** Where a background run came from: its channel, and the schedule or chat within it. */
function originLabel(origin: RunOriginView): string {
  const detail = origin.schedule ?? origin.chatId ?? origin.userId;
  return detail ? `${origin.channel}:${detail}` : origin.channel;
}

function AgentLine({ node, depth, width }: { node: AgentNode; depth: number; width: number }) {
  const { run } = node;
  const indent = depth === 0 ? '' : `${'  '.repeat(depth - 1)}└ `;
  // A finished run rests in IDLE: its outcome says more.
  const label = run.live ? run.state : (run.outcome ?? run.state).toUpperCase();
  return (
    <>
      <Text wrap="truncate-end">
        {run.live ? <Text color="cyan">▶ </Text> : '  '}
        {indent}
        <Text color={STATE_COLOR[label] ?? 'white'}>[{safe(label)}]</Text>{' '}
        {run.origin ? <Text color="magenta">{safe(originLabel(run.origin))} </Text> : ''}
        <Text>{safe(run.goal.replace(/\s+/g, ' ').slice(0, width))}</Text>
      </Text>
      {node.children.map((child) => (
        <AgentLine key={child.run.id} node={child} depth={depth + 1} width={width} />
      ))}
    </>
  );
}

export function AgentsList({
  runs,
  max,
  width,
}: {
  runs: RunSummary[];
  max: number;
  width: number;
}) {
  const roots = agentTree(runs).slice(0, max);
  if (roots.length === 0) return <Text dimColor>no runs yet</Text>;
  return (
    <Box flexDirection="column">
      {roots.map((node) => (
        <AgentLine key={node.run.id} node={node} depth={0} width={width} />
      ))}
    </Box>
  );
}

export function ActiveTools({ state, now }: { state: DashboardState; now: number }) {
  const running = Object.values(state.live).flatMap(({ run }) =>
    Object.values(run.tools)
      .filter((tool) => tool.status === 'running' || tool.status === 'waiting_approval')
      .map((tool) => ({ tool, started: state.toolStarts[tool.callId] })),
  );
  if (running.length === 0) return <Text dimColor>none running</Text>;
  return (
    <Box flexDirection="column">
      {running.map(({ tool, started }) => (
        <Text key={tool.callId} wrap="truncate-end">
          <Text color={tool.status === 'running' ? 'cyan' : 'yellow'}>▶ </Text>
          {safe(toolDisplayName(tool.name))}{' '}
          <Text dimColor>
            {tool.status === 'running'
              ? formatDuration(started === undefined ? null : now - started)
              : 'awaiting approval'}
          </Text>
        </Text>
      ))}
    </Box>
  );
}

export function MachineLine() {
  const load = os.loadavg()[0] ?? 0;
  const cores = os.availableParallelism();
  const usedMb = Math.round((os.totalmem() - os.freemem()) / 1024 / 1024);
  return (
    <Text dimColor>
      Load: {Math.round((load / cores) * 100)}% │ Mem: {usedMb} MB used
    </Text>
  );
}

export function AgentsPanel({
  state,
  now,
  width,
  height,
}: {
  state: DashboardState;
  now: number;
  width: number;
  height: number;
}) {
  return (
    <Box
      flexDirection="column"
      width={width}
      height={height}
      borderStyle="single"
      borderColor="gray"
      paddingX={1}
      overflow="hidden"
    >
      <Text bold>AGENTS</Text>
      <AgentsList runs={runsWithLiveState(state)} max={Math.max(1, height - 9)} width={width} />
      <MachineLine />
      <Text dimColor>{'─'.repeat(Math.max(0, width - 4))}</Text>
      <Text bold>ACTIVE TOOLS</Text>
      <ActiveTools state={state} now={now} />
    </Box>
  );
}
