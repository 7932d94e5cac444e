/**
 * The dashboard's data: the folded event state plus what it loads through the contract (info,
 * model, history, runs, approvals). Every change arrives as a pushed event or a call result;
 * nothing here reaches the core any other way.
 */
import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import type {
  AppInfo,
  AssistantEvent,
  ModelsState,
  PendingApprovalView,
  RequestOf,
  RunSummary,
  SessionHistory,
} from '../../../shared/ipc.js';
import type { CoreLink, LinkState } from '../../core/gateway/index.js';
import {
  applyEvent,
  type DashboardState,
  emptyState,
  forgetFinishedElsewhere,
  settleRuns,
} from './state.js';

type Action =
  | { type: 'events'; events: AssistantEvent[] }
  | { type: 'history'; history: SessionHistory }
  | { type: 'runs'; runs: RunSummary[] }
  | { type: 'approvals'; approvals: PendingApprovalView[] }
  | { type: 'session'; sessionId: string | null };

function reduce(state: DashboardState, action: Action): DashboardState {
  switch (action.type) {
    case 'events':
      return action.events.reduce((next, event) => applyEvent(next, event), state);
    case 'history':
      return action.history.session.id === state.sessionId
        ? settleRuns(state, action.history)
        : state;
    case 'runs':
      return { ...state, runs: action.runs };
    case 'approvals':
      return { ...state, approvals: action.approvals };
    case 'session':
      return action.sessionId === state.sessionId
        ? state
        : forgetFinishedElsewhere({ ...state, sessionId: action.sessionId, history: null });
  }
}

export interface Dashboard {
  state: DashboardState;
  info: AppInfo | null;
  models: ModelsState | null;
  link: LinkState;
  /** The last problem to show (a failed call, an approval answered elsewhere). */
  notice: string | null;
  setNotice(text: string | null): void;
  send(text: string): Promise<void>;
  cancel(): Promise<void>;
  resolve(
    approvalId: string,
    verdict: RequestOf<'approvals.resolve'>['verdict'],
    reason?: string,
  ): Promise<void>;
  openSession(sessionId: string | null): void;
  call: CoreLink['invoke'];
}

/** About 30 frames a second, Ink's own cap on drawing. */
const FRAME_MS = 33;

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function useDashboard(link: CoreLink, initialSession: string | null): Dashboard {
  const [state, dispatch] = useReducer(reduce, initialSession, emptyState);
  const [info, setInfo] = useState<AppInfo | null>(null);
  const [models, setModels] = useState<ModelsState | null>(null);
  const [linkState, setLinkState] = useState<LinkState>(link.state());
  const [notice, setNotice] = useState<string | null>(null);
  const session = useRef(state.sessionId);
  session.current = state.sessionId;
  const windowUnknown = useRef(true);
  windowUnknown.current = models?.contextWindow == null;

  const report = useCallback((error: unknown) => setNotice(errorText(error)), []);
  const loadHistory = useCallback(
    (sessionId: string | null) => {
      if (!sessionId) return;
      link
        .invoke('sessions.history', { sessionId })
        .then((history) => dispatch({ type: 'history', history }), report);
    },
    [link, report],
  );
  const loadRuns = useCallback(() => {
    link
      .invoke('runs.list', { limit: 50 })
      .then((runs) => dispatch({ type: 'runs', runs }), report);
  }, [link, report]);
  const loadModels = useCallback(() => {
    link.invoke('models.list', {}).then(setModels, report);
  }, [link, report]);

  useEffect(() => {
    // Streamed text is drawn at most every FRAME_MS: a fast model's tokens are folded in batches,
    // so the display costs one render per frame, not one per token. Anything else goes at once
    // (after the text before it, keeping the order).
    let queued: AssistantEvent[] = [];
    let timer: NodeJS.Timeout | undefined;
    const flush = () => {
      clearTimeout(timer);
      timer = undefined;
      if (queued.length) dispatch({ type: 'events', events: queued });
      queued = [];
    };
    const offEvents = link.subscribe((event) => {
      queued.push(event);
      if (event.topic === 'run' && event.event.type === 'model.delta') {
        timer ??= setTimeout(flush, FRAME_MS);
        return;
      }
      flush();
      if (event.topic === 'run' && event.event.type === 'run.finished') {
        if (event.sessionId === session.current) loadHistory(event.sessionId);
        loadRuns();
        // A local model's window is known once it loaded, which its first run did.
        if (windowUnknown.current) loadModels();
      } else if (event.topic === 'sessions.changed') loadRuns();
      else if (event.topic === 'models.changed') loadModels();
    });
    const offState = link.onStateChange(setLinkState);
    link.invoke('app.getInfo', {}).then(setInfo, report);
    link
      .invoke('approvals.list', {})
      .then((approvals) => dispatch({ type: 'approvals', approvals }), report);
    loadModels();
    // Runs already streaming when we attached: catch up on what they emitted so far.
    link.invoke('runs.list', { limit: 50 }).then(async (runs) => {
      dispatch({ type: 'runs', runs });
      for (const run of runs.filter((r) => r.live)) {
        const events = await link.invoke('runs.events', { runId: run.id }).catch(() => []);
        for (const event of events) {
          dispatch({
            type: 'events',
            events: [{ topic: 'run', sessionId: run.sessionId, event }],
          });
        }
      }
    }, report);
    return () => {
      clearTimeout(timer);
      offEvents();
      offState();
    };
  }, [link, loadHistory, loadModels, loadRuns, report]);

  useEffect(() => loadHistory(state.sessionId), [state.sessionId, loadHistory]);

  const liveRunId = Object.entries(state.live).find(
    ([, entry]) => entry.sessionId === state.sessionId && !entry.run.finished,
  )?.[0];

  return {
    state,
    info,
    models,
    link: linkState,
    notice,
    setNotice,
    call: link.invoke.bind(link) as CoreLink['invoke'],
    async send(text) {
      try {
        const started = await link.invoke('chat.send', {
          text,
          ...(state.sessionId ? { sessionId: state.sessionId } : {}),
        });
        setNotice(null);
        dispatch({ type: 'session', sessionId: started.sessionId });
      } catch (error) {
        report(error);
      }
    },
    async cancel() {
      if (liveRunId) await link.invoke('chat.cancel', { runId: liveRunId }).catch(report);
    },
    async resolve(approvalId, verdict, reason) {
      try {
        const { result } = await link.invoke('approvals.resolve', {
          approvalId,
          verdict,
          ...(reason ? { reason } : {}),
        });
        if (result !== 'resolved') {
          setNotice(
            result === 'already_resolved' || result === 'unknown'
              ? 'That approval was already answered elsewhere.'
              : 'This call cannot be approved for the whole session.',
          );
          // The other surface's answer wins: drop the card even if its event was missed.
          if (result !== 'not_session_approvable') {
            dispatch({
              type: 'approvals',
              approvals: state.approvals.filter((a) => a.id !== approvalId),
            });
          }
        }
      } catch (error) {
        report(error);
      }
    },
    openSession(sessionId) {
      dispatch({ type: 'session', sessionId });
    },
  };
}
