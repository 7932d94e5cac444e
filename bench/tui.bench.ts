/**
 * What the terminal dashboard costs per streamed token, so a fast local model is never slowed by
 * its own display: folding one `model.delta` into the dashboard state, and folding it plus a full
 * Ink render of the chat pane (layout and frame, written to a null terminal) with the reply so
 * far at several lengths. Ink draws at most 30 frames a second while a reply streams, so the
 * per-token cost at speed is the fold; the render figure is the worst case of one frame per token.
 */
import { Writable } from 'node:stream';
import { createElement } from 'react';
import { applyEvent, emptyState } from '../src/main/cli/tui/state.js';
import type { AssistantEvent } from '../src/shared/ipc.js';
import { measure, report } from './lib.js';

const WORDS = ['The ', 'answer ', 'is ', '**42**', ', and ', '`code` ', 'reads ', 'well.\n\n'];

function delta(seq: number): AssistantEvent {
  return {
    topic: 'run',
    sessionId: 'ses_bench',
    event: {
      type: 'model.delta',
      kind: 'text',
      text: WORDS[seq % WORDS.length] ?? ' ',
      trace_id: 't',
      task_id: 't',
      session_id: 'ses_bench',
      run_id: 'run_bench',
      seq,
      at: '2026-11-01T00:00:00Z',
    },
  };
}

/** A reply already `tokens` long, streaming into a pane rendered on a 120x40 null terminal. */
// As `pincer tui` runs it: React's production build (set before Ink and React's renderer load).
process.env.NODE_ENV ??= 'production';
const { render } = await import('ink');
const { ChatPane } = await import('../src/main/cli/tui/ChatPane.js');

function streamingPane(tokens: number) {
  let state = emptyState('ses_bench');
  for (let i = 0; i < tokens; i++) state = applyEvent(state, delta(i), 0);
  const stdout = Object.assign(new Writable({ write: (_c, _e, done) => done() }), {
    columns: 120,
    rows: 40,
    isTTY: true,
  }) as unknown as NodeJS.WriteStream;
  const pane = () =>
    createElement(ChatPane, {
      messages: [],
      toolCalls: [],
      live: Object.values(state.live).map((e) => e.run),
      showReasoning: true,
      height: 30,
      scroll: 0,
    });
  // debug: every update is laid out and written at once (no frame throttling).
  const app = render(pane(), { stdout, debug: true, patchConsole: false, exitOnCtrlC: false });
  let seq = tokens;
  return {
    step: () => {
      state = applyEvent(state, delta(seq++), 0);
      app.rerender(pane());
    },
    close: () => app.unmount(),
  };
}

export async function run(): Promise<void> {
  let state = emptyState('ses_bench');
  let seq = 0;
  const panes = [50, 500, 2000].map((tokens) => ({ tokens, pane: streamingPane(tokens) }));
  try {
    const results = await measure(
      [
        {
          name: 'fold one delta into the state',
          fn: () => (state = applyEvent(state, delta(seq++), 0)),
        },
        ...panes.map(({ tokens, pane }) => ({
          name: `fold + render the pane, reply at ${tokens}+ tokens`,
          fn: pane.step,
        })),
      ],
      { samples: 7, iterations: 20, warmup: 1 },
    );
    report('tui: cost per streamed token', results);
  } finally {
    for (const { pane } of panes) pane.close();
  }
}
