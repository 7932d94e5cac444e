/**
 * The conversation: stored history, then the runs of this session still streaming. Tool calls
 * appear inline in the typed-call notation with a one-line result summary. The pane shows the
 * newest lines; older ones scroll off the top (PageUp/PageDown move through them).
 */
import { Box, type DOMElement, measureElement, Text } from 'ink';
import { memo, useEffect, useMemo, useRef, useState } from 'react';
import type { ChatMessage, ToolCallView } from '../../../shared/ipc.js';
import type { LiveRun, LiveTool } from '../../../shared/live-run.js';
import { Markdown } from './markdown.js';
import { safe } from './safe-text.js';
import { callNotation } from './state.js';

type ToolLine = Pick<ToolCallView, 'name' | 'input' | 'output' | 'status' | 'durationMs'>;

const STATUS_MARK: Record<ToolCallView['status'], { mark: string; color: string }> = {
  requested: { mark: '…', color: 'gray' },
  waiting_approval: { mark: '?', color: 'yellow' },
  running: { mark: '▶', color: 'cyan' },
  ok: { mark: '✓', color: 'green' },
  error: { mark: '✗', color: 'red' },
  denied: { mark: '⊘', color: 'red' },
};

/** "3 lines: first line…" of a tool's output, or what state it is in. */
export function resultSummary(tool: ToolLine): string {
  if (tool.output === null) {
    return tool.status === 'waiting_approval' ? 'waiting for approval' : tool.status;
  }
  const lines = tool.output.split('\n').filter((line) => line.trim() !== '');
  const first = (lines[0] ?? '(empty)').slice(0, 100);
  const ms = tool.durationMs === null ? '' : ` · ${Math.round(tool.durationMs)} ms`;
  return `${tool.status}${ms} · ${lines.length} line${lines.length === 1 ? '' : 's'}: ${first}`;
}

export const ToolCallLine = memo(function ToolCallLine({ tool }: { tool: ToolLine }) {
  const { mark, color } = STATUS_MARK[tool.status];
  return (
    <Box flexShrink={0} flexDirection="column">
      <Text>
        <Text color={color}>{mark} </Text>
        <Text color="blue">{safe(callNotation(tool.name, tool.input))}</Text>
      </Text>
      <Text dimColor wrap="truncate-end">
        {'  ⎿ '}
        {safe(resultSummary(tool))}
      </Text>
    </Box>
  );
});

const Message = memo(function Message({
  message,
  tools,
  showReasoning,
}: {
  message: ChatMessage;
  tools: Map<string, ToolCallView>;
  showReasoning: boolean;
}) {
  if (message.role === 'user') {
    const text = message.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('');
    // A tool result travels as a user message: its call's line already shows it.
    if (!text) return null;
    return (
      <Box flexShrink={0} flexDirection="column" marginTop={1}>
        <Text bold color="cyan">
          you
        </Text>
        <Text>{safe(text)}</Text>
      </Box>
    );
  }
  return (
    <Box flexShrink={0} flexDirection="column" marginTop={1}>
      <Text bold color="magenta">
        pincer
      </Text>
      {message.blocks.map((block, index) => {
        const key = `${message.id}.${index}`;
        if (block.type === 'text') return <Markdown key={key} text={block.text} />;
        if (block.type === 'reasoning') {
          return showReasoning ? (
            <Text key={key} dimColor italic>
              {safe(block.text)}
            </Text>
          ) : null;
        }
        if (block.type === 'tool_use') {
          const view = tools.get(block.id);
          return (
            <ToolCallLine
              key={key}
              tool={
                view ?? {
                  name: block.name,
                  input: block.input,
                  output: null,
                  status: 'requested',
                  durationMs: null,
                }
              }
            />
          );
        }
        return null;
      })}
    </Box>
  );
});

export function LiveRunView({ run, showReasoning }: { run: LiveRun; showReasoning: boolean }) {
  return (
    <Box flexShrink={0} flexDirection="column" marginTop={1}>
      <Text>
        <Text bold color="magenta">
          pincer
        </Text>
        <Text dimColor> {run.finished ? run.finished.outcome : run.state.toLowerCase()}</Text>
      </Text>
      {run.items.map((item, index) => {
        const key = String(index); // items only ever grow at the end
        if (item.kind === 'text') return <Markdown key={key} text={item.text} />;
        if (item.kind === 'reasoning') {
          return showReasoning ? (
            <Text key={key} dimColor italic>
              {safe(item.text)}
            </Text>
          ) : null;
        }
        if (item.kind === 'notice') {
          return (
            <Text key={key} color="yellow">
              [{safe(item.text)}]
            </Text>
          );
        }
        const tool: LiveTool | undefined = run.tools[item.callId];
        return tool ? <ToolCallLine key={key} tool={tool} /> : null;
      })}
      {run.finished && run.finished.outcome !== 'completed' ? (
        <Text color="red">[{safe(run.finished.reason || run.finished.outcome)}]</Text>
      ) : null}
    </Box>
  );
}

export function ChatPane({
  messages,
  toolCalls,
  live,
  showReasoning,
  height,
  scroll,
}: {
  messages: ChatMessage[];
  toolCalls: ToolCallView[];
  live: LiveRun[];
  showReasoning: boolean;
  height: number;
  /** Lines scrolled back from the newest. */
  scroll: number;
}) {
  const tools = useMemo(() => new Map(toolCalls.map((call) => [call.callId, call])), [toolCalls]);
  const empty = messages.length === 0 && live.length === 0;
  // The newest lines are shown: the content is measured after layout and shifted up by what
  // does not fit (less what the person scrolled back).
  const content = useRef<DOMElement>(null);
  const [contentHeight, setContentHeight] = useState(0);
  useEffect(() => {
    if (content.current) {
      const measured = measureElement(content.current).height;
      if (measured !== contentHeight) setContentHeight(measured);
    }
  });
  const hiddenAbove = Math.max(0, contentHeight - height);
  const offset = Math.max(0, hiddenAbove - Math.min(scroll, hiddenAbove));
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      <Box ref={content} flexShrink={0} flexDirection="column" marginTop={-offset}>
        {empty ? (
          <Text dimColor>
            Type a message and press Enter. @fs/list{'{path="."}'} runs a tool directly; F1 or
            Ctrl+G for help.
          </Text>
        ) : null}
        {messages.map((message) => (
          <Message key={message.id} message={message} tools={tools} showReasoning={showReasoning} />
        ))}
        {live.map((run) => (
          <LiveRunView key={run.runId} run={run} showReasoning={showReasoning} />
        ))}
      </Box>
    </Box>
  );
}
