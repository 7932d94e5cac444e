/** Settings: models (with downloads), providers and keys, autonomy and policies, skills and
 * memory, appearance. Secret values go in, never come back out. */
import { type FormEvent, useCallback, useEffect, useState } from 'react';
import type {
  Autonomy,
  ModelsState,
  PoliciesView,
  ProviderView,
  ResponseOf,
  SecretsView,
  Settings,
} from '../../../shared/ipc';
import { useBridge, useCoreEvents } from '../lib/bridge-context';
import { errorText, formatBytes } from '../lib/format';

type Section = 'models' | 'providers' | 'autonomy' | 'skills' | 'appearance';

function useLoad<T>(
  load: () => Promise<T>,
): [T | null, string | null, () => void, (value: T) => void] {
  const [value, setValue] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reload = useCallback(() => {
    load()
      .then((v) => {
        setValue(v);
        setError(null);
      })
      .catch((cause: unknown) => setError(errorText(cause)));
  }, [load]);
  useEffect(reload, [reload]);
  return [value, error, reload, setValue];
}

function ModelsSection() {
  const bridge = useBridge();
  const [state, error, reload, setState] = useLoad(
    useCallback(() => bridge.invoke('models.list', {}), [bridge]),
  );
  const [busy, setBusy] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  useCoreEvents((event) => {
    if (event.topic === 'models.changed') reload();
    if (event.topic === 'model.pull')
      setState(
        (state
          ? {
              ...state,
              catalog: state.catalog.map((m) =>
                m.name === event.pull.name ? { ...m, pull: event.pull } : m,
              ),
            }
          : state) as ModelsState,
      );
  });
  async function act(label: string, call: () => Promise<ModelsState | { started: boolean }>) {
    setBusy(label);
    setActionError(null);
    try {
      const next = await call();
      if ('catalog' in next) setState(next);
    } catch (cause) {
      setActionError(errorText(cause));
    } finally {
      setBusy(null);
    }
  }
  if (error) return <p className="error-banner">{error}</p>;
  if (!state) return <p className="muted">Loading models…</p>;
  return (
    <div className="settings-section">
      <div className="card active-model">
        <div>
          <div className="label">Answering now</div>
          <div className="big" data-testid="active-model">
            {state.active}
          </div>
          <div className="muted">
            {state.kind === 'local'
              ? state.loaded
                ? 'Loaded in memory'
                : 'Not loaded (loads on the first message)'
              : state.kind === 'scripted'
                ? 'A scripted test model'
                : 'A remote provider chosen at launch'}
          </div>
        </div>
        {state.kind === 'local' && (
          <div className="row">
            <button
              type="button"
              disabled={busy !== null || state.loaded}
              onClick={() => act('load', () => bridge.invoke('models.load', {}))}
            >
              {busy === 'load' ? 'Loading…' : 'Load'}
            </button>
            <button
              type="button"
              disabled={busy !== null || !state.loaded}
              onClick={() => act('unload', () => bridge.invoke('models.unload', {}))}
            >
              Unload
            </button>
          </div>
        )}
      </div>
      {actionError && (
        <p className="error-banner" role="alert">
          {actionError}
        </p>
      )}
      <h3>Catalog</h3>
      <ul className="model-list">
        {state.catalog.map((model) => {
          const pull = model.pull;
          const pulling = pull?.state === 'running';
          return (
            <li key={model.name} className="card model-row" data-testid={`model-${model.name}`}>
              <div className="model-info">
                <div className="model-name">
                  {model.displayName}
                  {model.selected && <span className="badge outcome-completed">selected</span>}
                  {model.installed && !model.selected && <span className="badge">installed</span>}
                </div>
                <div className="muted">
                  {model.name} · {model.kind} · {formatBytes(model.sizeBytes)}
                  {model.license ? ` · ${model.license}` : ''}
                </div>
                {pull && pull.state !== 'done' && (
                  <div className="pull">
                    <progress
                      max={pull.totalBytes || 1}
                      value={pull.downloadedBytes}
                      aria-label={`Download of ${model.name}`}
                    />
                    <span className="muted" data-testid="pull-status">
                      {pull.state === 'failed'
                        ? `Failed: ${pull.error}`
                        : `${formatBytes(pull.downloadedBytes)} of ${formatBytes(pull.totalBytes)} (${Math.floor((pull.downloadedBytes / Math.max(1, pull.totalBytes)) * 100)}%)`}
                    </span>
                  </div>
                )}
                {pull?.state === 'done' && (
                  <div className="muted" data-testid="pull-status">
                    Downloaded and verified
                  </div>
                )}
              </div>
              <div className="row">
                {!model.installed && (
                  <button
                    type="button"
                    disabled={pulling}
                    onClick={() =>
                      act(`pull ${model.name}`, () =>
                        bridge.invoke('models.pull', { name: model.name }),
                      )
                    }
                  >
                    {pulling ? 'Downloading…' : 'Download'}
                  </button>
                )}
                {model.installed &&
                  model.kind === 'chat' &&
                  state.kind === 'local' &&
                  !model.selected && (
                    <button
                      type="button"
                      disabled={busy !== null}
                      onClick={() =>
                        act(`select ${model.name}`, () =>
                          bridge.invoke('models.select', { name: model.name }),
                        )
                      }
                    >
                      Use
                    </button>
                  )}
              </div>
            </li>
          );
        })}
      </ul>
      {state.otherFiles.length > 0 && (
        <>
          <h3>Other model files</h3>
          <ul className="model-list">
            {state.otherFiles.map((file) => (
              <li key={file} className="card model-row">
                <div className="model-info">
                  <div className="model-name">{file}</div>
                </div>
                {state.kind === 'local' && (
                  <button
                    type="button"
                    onClick={() =>
                      act(`select ${file}`, () => bridge.invoke('models.select', { name: file }))
                    }
                  >
                    Use
                  </button>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

function ProvidersSection() {
  const bridge = useBridge();
  const [providers, providersError] = useLoad<{ providers: ProviderView[]; routing: string }>(
    useCallback(() => bridge.invoke('providers.list', {}), [bridge]),
  );
  const [secrets, secretsError, , setSecrets] = useLoad<SecretsView>(
    useCallback(() => bridge.invoke('secrets.list', {}), [bridge]),
  );
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  async function save(event: FormEvent) {
    event.preventDefault();
    try {
      setSecrets(await bridge.invoke('secrets.set', { name: name.trim(), value }));
      setMessage(`Saved ${name.trim()}`);
      setName('');
      setValue('');
    } catch (cause) {
      setMessage(errorText(cause));
    }
  }
  async function remove(secret: string) {
    try {
      setSecrets(await bridge.invoke('secrets.delete', { name: secret }));
      setMessage(`Deleted ${secret}`);
    } catch (cause) {
      setMessage(errorText(cause));
    }
  }
  return (
    <div className="settings-section">
      <h3>Providers</h3>
      {providersError && <p className="error-banner">{providersError}</p>}
      {providers && (
        <>
          <p className="muted">Routing: {providers.routing}</p>
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>name</th>
                  <th>protocol</th>
                  <th>model</th>
                  <th>endpoint</th>
                  <th>key</th>
                  <th>fallback</th>
                </tr>
              </thead>
              <tbody>
                {providers.providers.map((p) => (
                  <tr key={p.name}>
                    <td>{p.name}</td>
                    <td>{p.protocol}</td>
                    <td>{p.model}</td>
                    <td>
                      <code>{p.endpoint}</code>
                    </td>
                    <td>
                      {p.secretRef
                        ? `${p.secretRef} ${p.hasKey ? '✓' : '(missing)'}`
                        : 'none needed'}
                    </td>
                    <td>{p.fallback.join(' → ') || '–'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      <h3>Keys</h3>
      <p className="muted">Names only: a stored value never comes back to this window.</p>
      {secretsError && <p className="error-banner">{secretsError}</p>}
      {secrets && (
        <>
          {secrets.names.length === 0 ? (
            <p className="muted">No keys stored.</p>
          ) : (
            <ul className="secret-list">
              {secrets.names.map((s) => (
                <li key={`${s.backend}/${s.name}`} className="card secret-row">
                  <code>{s.name}</code>
                  <span className="muted">
                    {s.backend}
                    {s.shadowed ? ' (shadowed)' : ''}
                  </span>
                  <span className="spacer" />
                  <button
                    type="button"
                    className="danger small"
                    onClick={() => void remove(s.name)}
                    aria-label={`Delete key ${s.name}`}
                  >
                    Delete
                  </button>
                </li>
              ))}
            </ul>
          )}
          <form className="secret-form" onSubmit={save}>
            <input
              aria-label="Key name"
              placeholder="OPENAI_API_KEY"
              value={name}
              onChange={(e) => setName(e.target.value)}
              maxLength={128}
            />
            <input
              aria-label="Key value"
              type="password"
              autoComplete="off"
              placeholder="value"
              value={value}
              onChange={(e) => setValue(e.target.value)}
              maxLength={16_384}
            />
            <button type="submit" className="primary" disabled={!name.trim() || !value}>
              Save key
            </button>
          </form>
          <p className="muted small-text">
            Stored in:{' '}
            {secrets.backends
              .filter((b) => b.available)
              .map((b) => b.label)
              .join(', ') || 'no backend available'}
          </p>
        </>
      )}
      {message && <p role="status">{message}</p>}
    </div>
  );
}

const AUTONOMY_TEXT: Record<Autonomy, string> = {
  observer: 'No tools at all: Pincer only talks.',
  supervised: 'Anything with a side effect asks you first, even where a rule allows it.',
  autonomous: 'The policy rules alone decide; Unsafe tools still ask every time.',
};

function AutonomySection() {
  const bridge = useBridge();
  const [policies, error, , setPolicies] = useLoad<PoliciesView>(
    useCallback(() => bridge.invoke('policies.get', {}), [bridge]),
  );
  if (error) return <p className="error-banner">{error}</p>;
  if (!policies) return <p className="muted">Loading…</p>;
  return (
    <div className="settings-section">
      <fieldset className="autonomy">
        <legend>Autonomy level</legend>
        {(['observer', 'supervised', 'autonomous'] as const).map((level) => (
          <label
            key={level}
            className={`card radio${policies.autonomy === level ? ' active' : ''}`}
          >
            <input
              type="radio"
              name="autonomy"
              value={level}
              checked={policies.autonomy === level}
              onChange={async () =>
                setPolicies(await bridge.invoke('policies.setAutonomy', { autonomy: level }))
              }
            />
            <span>
              <strong>{level}</strong>
              {policies.manifestAutonomy === level && <span className="badge">manifest</span>}
              <span className="muted block">{AUTONOMY_TEXT[level]}</span>
            </span>
          </label>
        ))}
        <p className="muted small-text">
          A change here lasts until Pincer restarts; the manifest (claw.yaml) keeps its own level.
        </p>
      </fieldset>
      <h3>Policy rules</h3>
      <p className="muted">First match wins; nothing matching means deny.</p>
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th>#</th>
              <th>rule</th>
              <th>action</th>
              <th>scope</th>
              <th>reason</th>
            </tr>
          </thead>
          <tbody>
            {policies.rules.map((rule, i) => (
              <tr key={`${rule.policy}/${rule.id}`}>
                <td>{i + 1}</td>
                <td>
                  <code>
                    {rule.policy}/{rule.id}
                  </code>
                </td>
                <td>
                  <span className={`badge action-${rule.action}`}>{rule.action}</span>
                </td>
                <td>{rule.scope}</td>
                <td>{rule.reason ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

type MemoryHits = ResponseOf<'memory.search'>;

function SkillsSection() {
  const bridge = useBridge();
  const [skills, skillsError] = useLoad(
    useCallback(() => bridge.invoke('skills.list', {}), [bridge]),
  );
  const [query, setQuery] = useState('');
  const [found, setFound] = useState<MemoryHits | null>(null);
  const [searchError, setSearchError] = useState<string | null>(null);
  async function search(event: FormEvent) {
    event.preventDefault();
    try {
      setFound(await bridge.invoke('memory.search', { query }));
      setSearchError(null);
    } catch (cause) {
      setSearchError(errorText(cause));
    }
  }
  return (
    <div className="settings-section">
      <h3>Skills</h3>
      {skillsError && <p className="error-banner">{skillsError}</p>}
      {skills && !skills.available && <p className="muted">{skills.note}</p>}
      {skills?.available && skills.skills.length === 0 && (
        <p className="muted">
          No skills installed. Add one with <code>pincer skills add FILE</code>.
        </p>
      )}
      <ul className="model-list">
        {skills?.skills.map((skill) => (
          <li key={skill.name} className="card model-row">
            <div className="model-info">
              <div className="model-name">
                {skill.name}
                <span className="badge">{skill.trust}</span>
                {!skill.enabled && <span className="badge">disabled</span>}
              </div>
              <div className="muted">{skill.description}</div>
            </div>
          </li>
        ))}
      </ul>
      <h3>Memory</h3>
      <form className="row" onSubmit={search}>
        <input
          aria-label="Search memory"
          placeholder="What do you remember about…"
          value={query}
          maxLength={2000}
          onChange={(e) => setQuery(e.target.value)}
        />
        <button type="submit" disabled={!query.trim()}>
          Search
        </button>
      </form>
      {searchError && <p className="error-banner">{searchError}</p>}
      {found && (
        <>
          {found.note && <p className="muted small-text">{found.note}</p>}
          {found.hits.length === 0 ? (
            <p className="muted" role="status">
              Nothing found.
            </p>
          ) : (
            <ul className="model-list" aria-label="Memory results">
              {found.hits.map((hit) => (
                <li key={`${hit.source}:${hit.text.slice(0, 40)}`} className="card">
                  <div className="muted small-text">
                    {hit.source} · score {hit.score.toFixed(3)}
                  </div>
                  <div className="memory-text">{hit.text}</div>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </div>
  );
}

function AppearanceSection({
  settings,
  onChange,
}: {
  settings: Settings;
  onChange: (patch: Partial<Settings>) => void;
}) {
  return (
    <div className="settings-section">
      <fieldset className="row">
        <legend>Theme</legend>
        {(['system', 'light', 'dark'] as const).map((theme) => (
          <label key={theme} className={`chip${settings.theme === theme ? ' active' : ''}`}>
            <input
              type="radio"
              name="theme"
              checked={settings.theme === theme}
              onChange={() => onChange({ theme })}
            />
            {theme}
          </label>
        ))}
      </fieldset>
      <label className="toggle">
        <input
          type="checkbox"
          checked={settings.enterSends}
          onChange={(e) => onChange({ enterSends: e.target.checked })}
        />
        Enter sends (Shift+Enter for a new line); otherwise Ctrl+Enter sends
      </label>
      <label className="toggle">
        <input
          type="checkbox"
          checked={settings.showReasoning}
          onChange={(e) => onChange({ showReasoning: e.target.checked })}
        />
        Show the model's reasoning when it shares it
      </label>
      <h3>Keyboard</h3>
      <dl className="shortcuts">
        <dt>
          <kbd>Enter</kbd>
        </dt>
        <dd>send</dd>
        <dt>
          <kbd>Esc</kbd>
        </dt>
        <dd>stop the reply</dd>
        <dt>
          <kbd>Alt+A</kbd> / <kbd>Alt+Shift+A</kbd>
        </dt>
        <dd>approve the oldest waiting call (once / for the session)</dd>
        <dt>
          <kbd>Alt+D</kbd>
        </dt>
        <dd>deny it</dd>
        <dt>
          <kbd>Alt+N</kbd>
        </dt>
        <dd>new chat</dd>
        <dt>
          <kbd>Alt+1</kbd> <kbd>Alt+2</kbd> <kbd>Alt+3</kbd>
        </dt>
        <dd>chat, runs, settings</dd>
      </dl>
    </div>
  );
}

const SECTIONS: Array<[Section, string]> = [
  ['models', 'Models'],
  ['providers', 'Providers & keys'],
  ['autonomy', 'Autonomy & policies'],
  ['skills', 'Skills & memory'],
  ['appearance', 'Appearance & keyboard'],
];

export function SettingsView({
  settings,
  onChange,
}: {
  settings: Settings;
  onChange: (patch: Partial<Settings>) => void;
}) {
  const [section, setSection] = useState<Section>('models');
  return (
    <section className="settings" aria-label="Settings">
      <nav className="settings-nav" aria-label="Settings sections">
        <h2>Settings</h2>
        {SECTIONS.map(([id, label]) => (
          <button
            key={id}
            type="button"
            className={section === id ? 'active' : ''}
            aria-current={section === id ? 'page' : undefined}
            onClick={() => setSection(id)}
          >
            {label}
          </button>
        ))}
      </nav>
      <div className="settings-body">
        <h2>{SECTIONS.find(([id]) => id === section)?.[1]}</h2>
        {section === 'models' && <ModelsSection />}
        {section === 'providers' && <ProvidersSection />}
        {section === 'autonomy' && <AutonomySection />}
        {section === 'skills' && <SkillsSection />}
        {section === 'appearance' && <AppearanceSection settings={settings} onChange={onChange} />}
      </div>
    </section>
  );
}
