/**
 * The conversation: stored history, the run streaming now, tool cards with their inline
 * approval prompts, and the composer.
 */
import { type ReactNode, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { errorText } from '../../../shared/format';
import { base64Head, sniffImage } from '../../../shared/images';
import type {
  Attachment,
  ChatMessage,
  PendingApprovalView,
  PendingInputView,
  RunEventView,
  SessionHistory,
  Settings,
} from '../../../shared/ipc';
import { applyRunEvent, type LiveRun, startLiveRun } from '../../../shared/live-run';
import type { ImageAttachment } from '../lib/attach';
import { useBridge, useCoreEvents } from '../lib/bridge-context';
import type { ApprovalVerdict } from './ApprovalCard';
import { Composer } from './Composer';
import { Logo } from './Icons';
import { type InputAction, InputCard, type InputContent } from './InputCard';
import {
  CopyButton,
  EditBubble,
  LiveAssistant,
  RunNotice,
  type ShownImage,
  StoredAssistant,
  UserBubble,
  VersionArrows,
} from './Transcript';

export interface ChatStats {
  model: string | null;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  firstTokenMs: number | null;
  lastTurnMs: number | null;
  busy: boolean;
}

/** Outcomes where the same question may well succeed when asked again. */
const RETRYABLE = new Set(['model_error', 'turn_timeout', 'run_timeout', 'interrupted']);

const SUGGESTIONS = [
  'What can you do on this computer?',
  'Summarise the files in my workspace',
  'Write a haiku about local-first software',
];

export function ChatView({
  sessionId,
  settings,
  approvals,
  onResolve,
  inputs = [],
  onAnswerInput,
  onSessionStarted,
  onOpenSession,
  onStats,
  toolbar,
  firstRun,
  focusMessageId,
  disabledReason,
  takesImages = false,
}: {
  /** Whether the model this conversation answers with takes images. */
  takesImages?: boolean;
  /** Why nothing can be sent now (the core is gone), or null. */
  disabledReason?: string | null;
  /** Brought into view and marked once the conversation is loaded (a search result). */
  focusMessageId?: string | null;
  /** Under the message box: the model picker. */
  toolbar?: ReactNode;
  /** Shown instead of the empty conversation while there is no model at all. */
  firstRun?: ReactNode;
  sessionId: string | null;
  settings: Settings;
  approvals: PendingApprovalView[];
  onResolve: (id: string, verdict: ApprovalVerdict, reason?: string) => void;
  /** Forms MCP servers asked to fill mid-call (those of this conversation are shown here). */
  inputs?: PendingInputView[];
  onAnswerInput?: (id: string, action: InputAction, content?: InputContent) => Promise<string[]>;
  onSessionStarted: (id: string) => void;
  onOpenSession: (id: string) => void;
  onStats: (stats: ChatStats) => void;
}) {
  const bridge = useBridge();
  const [history, setHistory] = useState<SessionHistory | null>(null);
  const [live, setLive] = useState<LiveRun | null>(null);
  /** The images of the message being sent, shown in its bubble until the stored one replaces it. */
  const [liveImages, setLiveImages] = useState<ShownImage[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  /** While a regenerated or edited turn streams: the message it follows (null: the start). */
  const [forkAt, setForkAt] = useState<string | null | undefined>(undefined);
  const [editing, setEditing] = useState<string | null>(null);
  // Events of a run whose id the send call has not returned yet (they may arrive first).
  const early = useRef<RunEventView[]>([]);
  const sending = useRef(false);
  const adopted = useRef<string | null>(null);
  const liveRef = useRef<LiveRun | null>(null);
  liveRef.current = live;
  const scroller = useRef<HTMLDivElement>(null);
  const stick = useRef(true);

  const load = useCallback(
    async (id: string, leafId?: string) => {
      try {
        const loaded = await bridge.invoke(
          'sessions.history',
          leafId ? { sessionId: id, leafId } : { sessionId: id },
        );
        setHistory(loaded);
        setForkAt(undefined);
        setError(null);
        return loaded;
      } catch (cause) {
        setError(errorText(cause));
        return null;
      }
    },
    [bridge],
  );

  // A session opened (or reloaded) while one of its runs is still going: catch up on its events.
  useEffect(() => {
    let stale = false;
    // The session this view just created by sending: its run is already streaming here.
    if (sessionId && adopted.current === sessionId) {
      adopted.current = null;
      return;
    }
    setLive(null);
    setHistory(null);
    setError(null);
    if (!sessionId) return;
    setLoading(true);
    void (async () => {
      const loaded = await load(sessionId);
      setLoading(false);
      const running = loaded?.runs.find((run) => run.live);
      if (!running || stale) return;
      const events = await bridge.invoke('runs.events', { runId: running.id });
      if (stale) return;
      setLive(
        events.reduce((run, e) => applyRunEvent(run, e), startLiveRun(running.id, running.goal)),
      );
    })();
    return () => {
      stale = true;
    };
  }, [sessionId, bridge, load]);

  useCoreEvents((event) => {
    if (event.topic !== 'run') return;
    const current = liveRef.current;
    if (current && current.runId === event.event.run_id) {
      setLive((run) => (run ? applyRunEvent(run, event.event) : run));
      if (event.event.type === 'run.finished') {
        void load(event.sessionId).then(() => setLive(null));
      }
    } else if (sending.current) {
      early.current.push(event.event);
    } else if (event.sessionId === sessionId && event.event.type === 'run.started') {
      // A run of this session started elsewhere (another window, the CLI): follow it.
      setLive(applyRunEvent(startLiveRun(event.event.run_id, event.event.goal), event.event));
    }
  });

  /**
   * Sends `text`. `from` continues from an earlier message (a regenerated or edited turn: null
   * for the first one); by default the turn follows the version in view.
   */
  async function send(
    text: string,
    from?: string | null,
    attachments: Attachment[] = [],
    images: ImageAttachment[] = [],
  ): Promise<boolean> {
    sending.current = true;
    setLiveImages(images.map(({ mediaType, data }) => ({ mediaType, data })));
    early.current = [];
    setError(null);
    setEditing(null);
    if (from !== undefined) setForkAt(from);
    setLive(startLiveRun('pending', text));
    const after = from !== undefined ? from : history?.messages.at(-1)?.id;
    try {
      const request = sessionId
        ? after !== undefined
          ? { sessionId, text, fromMessageId: after }
          : { sessionId, text }
        : { text };
      const started = await bridge.invoke('chat.send', {
        ...request,
        ...(attachments.length > 0 ? { attachments } : {}),
        ...(images.length > 0 ? { images: images.map(({ name, data }) => ({ name, data })) } : {}),
      });
      const mine = early.current.filter((event) => event.run_id === started.runId);
      early.current = [];
      const run = mine.reduce((run, e) => applyRunEvent(run, e), startLiveRun(started.runId, text));
      // At once, not at the next render: an event arriving before it must find this run.
      liveRef.current = run;
      setLive(run);
      if (run.finished) void load(started.sessionId).then(() => setLive(null));
      if (started.sessionId !== sessionId) {
        adopted.current = started.sessionId;
        onSessionStarted(started.sessionId);
      }
      return true;
    } catch (cause) {
      setLive(null);
      setForkAt(undefined);
      setError(errorText(cause));
      return false;
    } finally {
      sending.current = false;
    }
  }

  const cancel = useCallback(() => {
    const run = liveRef.current;
    if (run && run.runId !== 'pending') void bridge.invoke('chat.cancel', { runId: run.runId });
  }, [bridge]);

  // Escape stops the reply wherever the focus is.
  useEffect(() => {
    if (!live || live.finished) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape' && !event.defaultPrevented) cancel();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [live, cancel]);

  async function branch(messageId: string) {
    if (!sessionId) return;
    try {
      const copy = await bridge.invoke('sessions.branch', { sessionId, messageId });
      onOpenSession(copy.id);
    } catch (cause) {
      setError(errorText(cause));
    }
  }

  const tools = useMemo(
    () => new Map((history?.toolCalls ?? []).map((call) => [call.callId, call])),
    [history],
  );

  // Latency of the last run stays on the status bar after it ends.
  const lastLatency = useRef<Pick<ChatStats, 'model' | 'firstTokenMs' | 'lastTurnMs'>>({
    model: null,
    firstTokenMs: null,
    lastTurnMs: null,
  });
  if (live && (live.firstTokenMs !== null || live.lastTurnMs !== null)) {
    lastLatency.current = {
      model: live.model ?? lastLatency.current.model,
      firstTokenMs: live.firstTokenMs ?? lastLatency.current.firstTokenMs,
      lastTurnMs: live.lastTurnMs ?? lastLatency.current.lastTurnMs,
    };
  }

  // Status bar figures: the session's stored totals plus the run streaming now.
  useEffect(() => {
    const runs = history?.runs ?? [];
    const stored = runs.filter((run) => !live || run.id !== live.runId);
    onStats({
      model: lastLatency.current.model,
      inputTokens: stored.reduce((n, r) => n + r.inputTokens, 0) + (live?.inputTokens ?? 0),
      outputTokens: stored.reduce((n, r) => n + r.outputTokens, 0) + (live?.outputTokens ?? 0),
      costUsd: stored.reduce((n, r) => n + r.costUsd, 0) + (live?.costUsd ?? 0),
      firstTokenMs: lastLatency.current.firstTokenMs,
      lastTurnMs: lastLatency.current.lastTurnMs,
      busy: live !== null && !live.finished,
    });
  }, [history, live, onStats]);

  useEffect(() => {
    const box = scroller.current;
    if (box && stick.current) box.scrollTop = box.scrollHeight;
  });

  // A search result: its message in view, marked for a moment.
  useEffect(() => {
    if (!focusMessageId || !history) return;
    const element = scroller.current?.querySelector(`[data-message-id="${focusMessageId}"]`);
    if (!element) return;
    stick.current = false;
    element.scrollIntoView({ block: 'center' });
    element.classList.add('found');
  }, [focusMessageId, history]);

  async function exportAs(format: 'markdown' | 'json') {
    if (!sessionId) return;
    try {
      const file = await bridge.invoke('sessions.export', { sessionId, format });
      const url = URL.createObjectURL(new Blob([file.content], { type: file.mediaType }));
      const link = document.createElement('a');
      link.href = url;
      link.download = file.fileName;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (cause) {
      setError(errorText(cause));
    }
  }

  const sessionApprovals = approvals.filter((a) => !sessionId || a.sessionId === sessionId);
  const sessionInputs = inputs.filter(
    (i) => (sessionId !== null && i.sessionId === sessionId) || i.runId === live?.runId,
  );
  const liveRunId = live?.runId;
  const shown = history?.messages ?? [];
  // A turn being regenerated or edited replaces what followed the message it forks from.
  const cut =
    forkAt === undefined
      ? shown.length
      : forkAt === null
        ? 0
        : shown.findIndex((m) => m.id === forkAt) + 1;
  const messages = shown
    .slice(0, cut)
    .filter((m) => !(liveRunId && m.runId === liveRunId && m.role === 'assistant'));
  const busy = live !== null && !live.finished;
  const textOf = (message: { blocks: ChatMessage['blocks'] }) =>
    message.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
  /** A stored question's images, to send again with it (regenerate, edit). */
  const imagesOf = (message: { blocks: ChatMessage['blocks'] }): ImageAttachment[] =>
    message.blocks.flatMap((b, i) => {
      const mediaType = b.type === 'image' && b.data ? sniffImage(base64Head(b.data)) : null;
      return b.type === 'image' && b.data && mediaType
        ? [{ name: `image-${i + 1}.${mediaType.slice(6)}`, mediaType, data: b.data }]
        : [];
    });
  /** The question a reply answers: the user message before it. */
  const questionBefore = (index: number) =>
    messages
      .slice(0, index)
      .reverse()
      .find((m) => m.role === 'user' && textOf(m));
  const regenerate = (index: number) => {
    const question = questionBefore(index);
    if (question) void send(textOf(question), question.parentId, [], imagesOf(question));
  };
  const showVersion = (id: string) => {
    if (sessionId) void load(sessionId, id);
  };
  const liveGoalStored = messages.some(
    (m) => m.runId === liveRunId && m.role === 'user' && m.blocks.some((b) => b.type === 'text'),
  );
  const runsById = new Map((history?.runs ?? []).map((run) => [run.id, run]));
  const empty = !loading && messages.length === 0 && !live;

  return (
    <section className="chat" aria-label="Conversation">
      {history && (
        <header className="chat-header">
          <h2 className="chat-title">{history.session.title}</h2>
          {history.session.branchedFrom && (
            <span className="muted branch-source">
              Branched from{' '}
              {history.session.branchedFrom.title === null ? (
                'a deleted conversation'
              ) : (
                <button
                  type="button"
                  className="link"
                  onClick={() => onOpenSession(history.session.branchedFrom?.sessionId ?? '')}
                >
                  {history.session.branchedFrom.title}
                </button>
              )}
            </span>
          )}
          <span className="spacer" />
          <button type="button" className="ghost small" onClick={() => void exportAs('markdown')}>
            Export Markdown
          </button>
          <button type="button" className="ghost small" onClick={() => void exportAs('json')}>
            Export JSON
          </button>
        </header>
      )}
      <div
        className="transcript"
        ref={scroller}
        aria-live="polite"
        onScroll={(event) => {
          const box = event.currentTarget;
          stick.current = box.scrollHeight - box.scrollTop - box.clientHeight < 80;
        }}
      >
        {loading && <p className="muted center">Loading the conversation…</p>}
        {empty && firstRun}
        {empty && !firstRun && (
          <div className="empty-state">
            <div className="empty-logo" aria-hidden="true">
              <Logo size={56} />
            </div>
            <h2>How can I help?</h2>
            <p className="muted">
              Pincer runs on this computer. Tools ask before they touch anything.
            </p>
            <div className="suggestions">
              {SUGGESTIONS.map((text) => (
                <button
                  key={text}
                  type="button"
                  className="suggestion"
                  onClick={() => void send(text)}
                >
                  {text}
                </button>
              ))}
            </div>
          </div>
        )}
        {messages.map((message, index) => {
          const next = messages[index + 1];
          const run = message.runId ? runsById.get(message.runId) : undefined;
          const lastOfRun = run && run.id !== liveRunId && next?.runId !== message.runId;
          const notice =
            lastOfRun && run.outcome ? (
              <RunNotice outcome={run.outcome} reason={run.reason}>
                {!busy && RETRYABLE.has(run.outcome) && (
                  <button type="button" className="small" onClick={() => regenerate(index + 1)}>
                    Retry
                  </button>
                )}
                {!busy && run.outcome === 'cancelled' && index === messages.length - 1 && (
                  <button type="button" className="small" onClick={() => void send('Continue.')}>
                    Continue
                  </button>
                )}
              </RunNotice>
            ) : null;
          if (message.role === 'user') {
            const text = textOf(message);
            const images = message.blocks.filter((b) => b.type === 'image');
            if (editing === message.id) {
              return (
                <div key={message.id} data-message-id={message.id}>
                  <EditBubble
                    text={text}
                    onSend={(edited) => void send(edited, message.parentId, [], imagesOf(message))}
                    onCancel={() => setEditing(null)}
                  />
                </div>
              );
            }
            return (
              <div key={message.id} data-message-id={message.id}>
                {text && (
                  <UserBubble text={text} images={images}>
                    <VersionArrows
                      siblings={message.siblings}
                      current={message.id}
                      onShow={showVersion}
                    />
                    <CopyButton text={text} label="Copy message" />
                    {!busy && (
                      <button
                        type="button"
                        className="ghost small"
                        onClick={() => setEditing(message.id)}
                      >
                        Edit
                      </button>
                    )}
                  </UserBubble>
                )}
                {notice}
              </div>
            );
          }
          const lastOfTurn = next?.role !== 'assistant';
          return (
            <div key={message.id} data-message-id={message.id}>
              <StoredAssistant
                message={message}
                tools={tools}
                approvals={sessionApprovals}
                showReasoning={settings.showReasoning}
                onResolve={onResolve}
                onBranch={() => void branch(message.id)}
                actions={
                  <>
                    <CopyButton text={textOf(message)} label="Copy reply" />
                    {lastOfTurn && !busy && (
                      <button
                        type="button"
                        className="ghost small"
                        onClick={() => regenerate(index)}
                      >
                        Regenerate
                      </button>
                    )}
                  </>
                }
              />
              {notice}
            </div>
          );
        })}
        {live && !liveGoalStored && <UserBubble text={live.goal} images={liveImages} />}
        {live && (
          <LiveAssistant
            live={live}
            approvals={sessionApprovals}
            showReasoning={settings.showReasoning}
            onResolve={onResolve}
          />
        )}
        {onAnswerInput &&
          sessionInputs.map((input) => (
            <InputCard key={input.id} input={input} onAnswer={onAnswerInput} />
          ))}
        {error && (
          <p className="error-banner" role="alert">
            {error}
          </p>
        )}
      </div>
      <Composer
        key={sessionId ?? 'new'}
        busy={busy}
        disabled={!!disabledReason}
        disabledReason={disabledReason ?? undefined}
        enterSends={settings.enterSends}
        takesImages={takesImages}
        onSend={(text, attachments, images) => send(text, undefined, attachments, images)}
        onCancel={cancel}
        toolbar={toolbar}
      />
    </section>
  );
}
