import { useCallback, useEffect, useState } from 'react';
import { errorText } from '../../shared/format';
import type {
  AppInfo,
  ModelsState,
  PendingApprovalView,
  PendingInputView,
  PincerApi,
  SearchHit,
  SessionSummary,
  Settings,
} from '../../shared/ipc';
import { DISCONNECTED_EVENT } from './bridge';
import type { ApprovalVerdict } from './components/ApprovalCard';
import { ApprovalsPanel } from './components/ApprovalsPanel';
import { type ChatStats, ChatView } from './components/ChatView';
import { FirstRun } from './components/FirstRun';
import { Logo } from './components/Icons';
import type { InputAction, InputContent } from './components/InputCard';
import { ModelPicker } from './components/ModelPicker';
import { RunsView } from './components/RunsView';
import { SearchDialog } from './components/SearchDialog';
import { type Section, SettingsView } from './components/SettingsView';
import { Sidebar, type View } from './components/Sidebar';
import { type ModelHealth, StatusBar } from './components/StatusBar';
import { ToolsMenu } from './components/ToolsMenu';
import { BridgeProvider, useBridge, useCoreEvents } from './lib/bridge-context';
import { typingIn, withMod } from './lib/keys';
import { applyTheme } from './lib/theme';

const DEFAULT_SETTINGS: Settings = {
  theme: 'system',
  showReasoning: true,
  enterSends: true,
  systemPrompt: '',
  temperature: null,
  contextSize: null,
};
const NO_STATS: ChatStats = {
  model: null,
  inputTokens: 0,
  outputTokens: 0,
  costUsd: 0,
  firstTokenMs: null,
  lastTurnMs: null,
  busy: false,
};
const SESSION_KEY = 'pincer.session';

function NotConnected() {
  return (
    <main className="not-connected">
      <div className="card">
        <div className="empty-logo" aria-hidden="true">
          <Logo size={56} />
        </div>
        <h1>Pincer</h1>
        <p data-testid="connection">not connected</p>
        <p role="status">
          This page is not connected to a Pincer core. Start one with{' '}
          <code>npx pincer gateway</code> and open the address it prints (it carries a one-time
          token), or use the desktop app. Headless checks: <code>npx pincer doctor</code>.
        </p>
      </div>
    </main>
  );
}

function Workspace() {
  const bridge = useBridge();
  const [info, setInfo] = useState<AppInfo | null>(null);
  const [sessions, setSessions] = useState<SessionSummary[] | null>(null);
  const [activeId, setActiveId] = useState<string | null>(() =>
    sessionStorage.getItem(SESSION_KEY),
  );
  const [view, setView] = useState<View>('chat');
  const [approvals, setApprovals] = useState<PendingApprovalView[]>([]);
  const [inputs, setInputs] = useState<PendingInputView[]>([]);
  const [settings, setSettings] = useState<Settings>(DEFAULT_SETTINGS);
  const [models, setModels] = useState<ModelsState | null>(null);
  const [settingsSection, setSettingsSection] = useState<Section>('models');
  const [stats, setStats] = useState<ChatStats>(NO_STATS);
  const [error, setError] = useState<string | null>(null);
  const [chatKey, setChatKey] = useState(0);
  const [connected, setConnected] = useState(true);
  const [searching, setSearching] = useState(false);
  /** The sidebar as a drawer, in a narrow window. */
  const [drawerOpen, setDrawerOpen] = useState(false);
  /** The last model call's failure, until a model call succeeds again. */
  const [modelFailure, setModelFailure] = useState<string | null>(null);
  /** A message to bring into view once its conversation is open (a search result). */
  const [focusMessage, setFocusMessage] = useState<string | null>(null);

  useEffect(() => {
    const lost = () => setConnected(false);
    window.addEventListener(DISCONNECTED_EVENT, lost);
    return () => window.removeEventListener(DISCONNECTED_EVENT, lost);
  }, []);

  const loadSessions = useCallback(() => {
    bridge
      .invoke('sessions.list', {})
      .then(setSessions)
      .catch((cause: unknown) => setError(errorText(cause)));
  }, [bridge]);
  const loadModel = useCallback(() => {
    bridge
      .invoke('models.list', {})
      .then(setModels)
      .catch(() => undefined);
  }, [bridge]);

  useEffect(() => {
    bridge.invoke('app.getInfo', {}).then(setInfo, () => setInfo(null));
    bridge.invoke('settings.get', {}).then((s) => {
      setSettings(s);
      applyTheme(s.theme);
    });
    bridge.invoke('approvals.list', {}).then(setApprovals);
    bridge.invoke('inputs.list', {}).then(setInputs);
    // A remembered session that no longer exists (deleted elsewhere) is forgotten.
    bridge.invoke('sessions.list', {}).then(
      (list) => {
        setSessions(list);
        setActiveId((id) => (id && list.some((s) => s.id === id) ? id : null));
      },
      (cause: unknown) => setError(errorText(cause)),
    );
    loadModel();
  }, [bridge, loadModel]);

  useEffect(() => {
    if (activeId) sessionStorage.setItem(SESSION_KEY, activeId);
    else sessionStorage.removeItem(SESSION_KEY);
  }, [activeId]);

  useCoreEvents((event) => {
    if (event.topic === 'run' && event.event.type === 'model.finished') setModelFailure(null);
    else if (event.topic === 'run' && event.event.type === 'run.finished')
      setModelFailure(event.event.outcome === 'model_error' ? event.event.reason : null);
    if (event.topic === 'sessions.changed') loadSessions();
    else if (event.topic === 'approval.requested')
      setApprovals((list) =>
        list.some((a) => a.id === event.approval.id) ? list : [...list, event.approval],
      );
    else if (event.topic === 'approval.resolved')
      setApprovals((list) => list.filter((a) => a.id !== event.id));
    else if (event.topic === 'input.requested')
      setInputs((list) =>
        list.some((i) => i.id === event.input.id) ? list : [...list, event.input],
      );
    else if (event.topic === 'input.resolved')
      setInputs((list) => list.filter((i) => i.id !== event.id));
    else if (event.topic === 'settings.changed') {
      setSettings(event.settings);
      applyTheme(event.settings.theme);
    } else if (event.topic === 'models.changed') loadModel();
    else if (event.topic === 'model.pull')
      setModels((state) =>
        state
          ? {
              ...state,
              catalog: state.catalog.map((m) =>
                m.name === event.pull.name ? { ...m, pull: event.pull } : m,
              ),
            }
          : state,
      );
    else if (event.topic === 'ui.newChat') newChat();
  });

  const resolve = useCallback(
    (id: string, verdict: ApprovalVerdict, reason?: string) => {
      setApprovals((list) => list.filter((a) => a.id !== id));
      bridge
        .invoke(
          'approvals.resolve',
          reason ? { approvalId: id, verdict, reason } : { approvalId: id, verdict },
        )
        .then(({ result }) => {
          if (result === 'resolved' || result === 'already_resolved') return;
          // Refused (e.g. not approvable for the session): show it again, and say why.
          setError(
            result === 'not_session_approvable'
              ? 'This tool cannot be approved for the whole session; approve it once or deny it.'
              : 'That approval is no longer waiting.',
          );
          return bridge.invoke('approvals.list', {}).then(setApprovals);
        })
        .catch((cause: unknown) => setError(errorText(cause)));
    },
    [bridge],
  );

  /** Answers a server's form; resolves with what does not fit it (empty: answered or gone). */
  const answerInput = useCallback(
    async (id: string, action: InputAction, content?: InputContent): Promise<string[]> => {
      try {
        const { result, errors } = await bridge.invoke(
          'inputs.resolve',
          content ? { inputId: id, action, content } : { inputId: id, action },
        );
        if (result === 'invalid') return errors;
        setInputs((list) => list.filter((i) => i.id !== id));
        if (result !== 'resolved') setError('That form is no longer waiting.');
        return [];
      } catch (cause) {
        return [errorText(cause)];
      }
    },
    [bridge],
  );

  const newChat = useCallback(() => {
    setActiveId(null);
    setView('chat');
    setChatKey((k) => k + 1);
  }, []);

  // Ctrl/Cmd+K searches every conversation, from anywhere (a text field included).
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && !event.altKey && event.code === 'KeyK') {
        event.preventDefault();
        setSearching(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  // The approval the keyboard answers: the oldest of the conversation in view. A destructive
  // one takes a click.
  const keyApproval = approvals.find(
    (a) => view === 'chat' && a.sessionId === activeId && !a.risk.destructive,
  );

  // Keyboard first: approvals (never while focus is in a text field), new chat and views.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const act = (fn: () => void) => {
        event.preventDefault();
        fn();
      };
      if (withMod(event) && keyApproval && !typingIn(event.target)) {
        if (event.key === 'Enter')
          act(() =>
            resolve(
              keyApproval.id,
              event.shiftKey && keyApproval.sessionApprovable ? 'approve-for-session' : 'approve',
            ),
          );
        else if (event.key === 'Backspace' && !event.shiftKey)
          act(() => resolve(keyApproval.id, 'deny'));
        return;
      }
      if (!event.altKey || event.ctrlKey || event.metaKey) return;
      const key = event.key.toLowerCase();
      if (event.code === 'KeyN') act(newChat);
      else if (key === '1' || event.code === 'Digit1') act(() => setView('chat'));
      else if (key === '2' || event.code === 'Digit2') act(() => setView('runs'));
      else if (key === '3' || event.code === 'Digit3') act(() => setView('settings'));
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [keyApproval, resolve, newChat]);

  const updateSettings = (patch: Partial<Settings>) => {
    const next = { ...settings, ...patch };
    setSettings(next);
    applyTheme(next.theme);
    bridge.invoke('settings.set', patch).catch((cause: unknown) => setError(errorText(cause)));
  };

  const openSettings = (section: Section) => {
    setSettingsSection(section);
    setView('settings');
  };
  const activeSession = sessions?.find((s) => s.id === activeId);
  // A conversation shows the model it answers with; a new one, the default.
  const pickerValue = activeSession
    ? (activeSession.modelId ?? models?.selectedId ?? null)
    : (models?.defaultId ?? models?.selectedId ?? null);
  const pickModel = (id: string) => {
    bridge
      .invoke('models.select', activeId ? { id, sessionId: activeId } : { id })
      .then(setModels)
      .catch((cause: unknown) => setError(errorText(cause)));
  };

  const openHit = (hit: SearchHit) => {
    setSearching(false);
    setFocusMessage(hit.messageId);
    setActiveId(hit.sessionId);
    setView('chat');
  };

  const health: ModelHealth = modelFailure
    ? { state: 'failed', reason: modelFailure }
    : !models || (models.selectedId === null && models.kind === 'local')
      ? { state: 'none' }
      : models.kind === 'local' && !models.loaded
        ? { state: 'idle' }
        : { state: 'ready' };

  const titleOf = (id: string) => sessions?.find((s) => s.id === id)?.title ?? 'a conversation';
  // The chat shows the forms of the conversation in view; the panel, those of the others.
  const otherInputs = inputs.filter((i) => i.sessionId !== activeId);
  const showApprovals = view === 'chat' && (approvals.length > 0 || otherInputs.length > 0);

  return (
    <div
      className={`app${showApprovals ? ' with-approvals' : ''}${drawerOpen ? ' drawer-open' : ''}`}
    >
      {drawerOpen && (
        <button
          type="button"
          className="drawer-scrim"
          aria-label="Close the menu"
          onClick={() => setDrawerOpen(false)}
        />
      )}
      <Sidebar
        sessions={sessions}
        activeId={activeId}
        view={view}
        pendingCount={approvals.length + inputs.length}
        onView={(next) => {
          setView(next);
          setDrawerOpen(false);
        }}
        onNew={() => {
          newChat();
          setDrawerOpen(false);
        }}
        onSearch={() => setSearching(true)}
        onOpen={(id) => {
          setActiveId(id);
          setView('chat');
          setDrawerOpen(false);
        }}
        onRename={(id, title) => {
          bridge
            .invoke('sessions.rename', { sessionId: id, title })
            .catch((cause: unknown) => setError(errorText(cause)));
        }}
        onDelete={(id) => {
          bridge
            .invoke('sessions.delete', { sessionId: id })
            .then(() => {
              if (id === activeId) newChat();
            })
            .catch((cause: unknown) => setError(errorText(cause)));
        }}
      />
      <main className="main">
        <button
          type="button"
          className="ghost small menu-button"
          aria-label="Menu"
          aria-expanded={drawerOpen}
          onClick={() => setDrawerOpen(true)}
        >
          ☰ Menu
        </button>
        {!connected && (
          <div className="error-banner top" role="alert">
            <span>
              The connection to the Pincer core was lost. Start <code>pincer gateway</code> again
              and open the address it prints.
            </span>
          </div>
        )}
        {error && (
          <div className="error-banner top" role="alert">
            {error}
            <button
              type="button"
              className="ghost small"
              onClick={() => setError(null)}
              aria-label="Dismiss"
            >
              ✕
            </button>
          </div>
        )}
        {view === 'chat' && (
          <ChatView
            key={chatKey}
            sessionId={activeId}
            settings={settings}
            approvals={approvals}
            onResolve={resolve}
            inputs={inputs}
            onAnswerInput={answerInput}
            onSessionStarted={setActiveId}
            onOpenSession={(id) => {
              setActiveId(id);
              loadSessions();
            }}
            onStats={setStats}
            disabledReason={
              connected
                ? null
                : 'Not connected to the Pincer core: start it again (pincer gateway) and reload'
            }
            focusMessageId={focusMessage}
            takesImages={models?.options.find((o) => o.id === pickerValue)?.takesImages ?? false}
            firstRun={
              models && models.selectedId === null && models.options.length === 0 ? (
                <FirstRun
                  models={models}
                  onModels={setModels}
                  onAddProvider={() => openSettings('providers')}
                  onError={setError}
                />
              ) : undefined
            }
            toolbar={
              <>
                <ModelPicker
                  state={models}
                  value={pickerValue}
                  busy={stats.busy}
                  onPick={pickModel}
                  onAddProvider={() => openSettings('providers')}
                />
                <ToolsMenu key={activeId ?? 'new'} sessionId={activeId} />
              </>
            }
          />
        )}
        {view === 'runs' && <RunsView />}
        {view === 'settings' && (
          <SettingsView
            key={settingsSection}
            settings={settings}
            onChange={updateSettings}
            initialSection={settingsSection}
          />
        )}
      </main>
      {showApprovals && (
        <ApprovalsPanel
          approvals={approvals}
          inputs={otherInputs}
          onAnswerInput={answerInput}
          keyTarget={keyApproval?.id ?? null}
          sessionTitle={titleOf}
          onResolve={resolve}
          onOpenSession={(id) => {
            setActiveId(id);
            setView('chat');
          }}
        />
      )}
      {searching && <SearchDialog onOpen={openHit} onClose={() => setSearching(false)} />}
      <StatusBar
        connected={connected}
        transport={info?.transport ?? '…'}
        model={models?.active ?? '…'}
        health={health}
        priced={models?.priced ?? true}
        stats={stats}
      />
    </div>
  );
}

export function App({ bridge }: { bridge: PincerApi | null }) {
  if (!bridge) return <NotConnected />;
  return (
    <BridgeProvider bridge={bridge}>
      <Workspace />
    </BridgeProvider>
  );
}
