/**
 * Installed skills (add one from a file, turn one on or off), what memory holds (search it,
 * remember a note or a text file).
 */
import { type FormEvent, useCallback, useRef, useState } from 'react';
import { MAX_ATTACHMENT_BYTES } from '../../../../shared/attachments';
import { errorText } from '../../../../shared/format';
import type { ResponseOf } from '../../../../shared/ipc';
import { useBridge } from '../../lib/bridge-context';
import { useLoad } from './use-load';

type MemoryHits = ResponseOf<'memory.search'>;

/** A chosen file's name and text, refused here when over the limit the core enforces too. */
async function readTextFile(file: File): Promise<{ name: string; text: string }> {
  if (file.size > MAX_ATTACHMENT_BYTES)
    throw new Error(`${file.name} is over ${MAX_ATTACHMENT_BYTES / 1024} KiB`);
  return { name: file.name, text: await file.text() };
}

export function SkillsSection() {
  const bridge = useBridge();
  const [skills, skillsError, , setSkills] = useLoad(
    useCallback(() => bridge.invoke('skills.list', {}), [bridge]),
  );
  const skillInput = useRef<HTMLInputElement>(null);
  const memoryInput = useRef<HTMLInputElement>(null);
  const [skillStatus, setSkillStatus] = useState<{ text: string; error: boolean } | null>(null);
  const [note, setNote] = useState('');
  const [memoryStatus, setMemoryStatus] = useState<{ text: string; error: boolean } | null>(null);
  async function addSkill(file: File | undefined) {
    if (!file) return;
    try {
      const added = await bridge.invoke('skills.add', { file: await readTextFile(file) });
      setSkillStatus({ text: `${added.name}: ${added.status}`, error: false });
      setSkills(await bridge.invoke('skills.list', {}));
    } catch (cause) {
      setSkillStatus({ text: errorText(cause), error: true });
    }
  }
  async function toggle(name: string, enabled: boolean) {
    try {
      setSkills(await bridge.invoke('skills.setEnabled', { name, enabled }));
      setSkillStatus(null);
    } catch (cause) {
      setSkillStatus({ text: errorText(cause), error: true });
    }
  }
  async function remember(request: { text: string; name?: string }) {
    try {
      const kept = await bridge.invoke('memory.add', request);
      setMemoryStatus({ text: `Remembered as ${kept.source}`, error: false });
      if (!request.name) setNote('');
    } catch (cause) {
      // The note stays in the box: nothing typed is lost to a refusal.
      setMemoryStatus({ text: errorText(cause), error: true });
    }
  }
  async function rememberFile(file: File | undefined) {
    if (!file) return;
    try {
      await remember(await readTextFile(file));
    } catch (cause) {
      setMemoryStatus({ text: errorText(cause), error: true });
    }
  }
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
          No skills installed. Add a SKILL.md or a CKP Skill YAML file (or use{' '}
          <code>pincer skills add FILE</code>).
        </p>
      )}
      <ul className="model-list" aria-label="Skills">
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
            <button
              type="button"
              aria-label={`${skill.enabled ? 'Disable' : 'Enable'} ${skill.name}`}
              onClick={() => void toggle(skill.name, !skill.enabled)}
            >
              {skill.enabled ? 'Disable' : 'Enable'}
            </button>
          </li>
        ))}
      </ul>
      <input
        ref={skillInput}
        type="file"
        accept=".md,.yaml,.yml"
        hidden
        aria-label="Skill file"
        onChange={(event) => {
          void addSkill(event.target.files?.[0]);
          event.target.value = '';
        }}
      />
      <div className="row">
        <button type="button" onClick={() => skillInput.current?.click()}>
          Add a skill…
        </button>
      </div>
      {skillStatus && (
        <p
          role={skillStatus.error ? 'alert' : 'status'}
          className={skillStatus.error ? 'error-banner' : 'muted'}
          data-testid="skill-status"
        >
          {skillStatus.text}
        </p>
      )}
      <h3>Memory</h3>
      <form
        className="memory-add"
        onSubmit={(event) => {
          event.preventDefault();
          void remember({ text: note });
        }}
      >
        <textarea
          aria-label="Something to remember"
          placeholder="Something Pincer should remember…"
          value={note}
          maxLength={MAX_ATTACHMENT_BYTES}
          rows={3}
          onChange={(e) => setNote(e.target.value)}
        />
        <div className="row">
          <button type="submit" disabled={!note.trim()}>
            Remember
          </button>
          <input
            ref={memoryInput}
            type="file"
            accept=".md,.markdown,.txt"
            hidden
            aria-label="Text file to remember"
            onChange={(event) => {
              void rememberFile(event.target.files?.[0]);
              event.target.value = '';
            }}
          />
          <button type="button" onClick={() => memoryInput.current?.click()}>
            Remember a text file…
          </button>
        </div>
      </form>
      {memoryStatus && (
        <p
          role={memoryStatus.error ? 'alert' : 'status'}
          className={memoryStatus.error ? 'error-banner' : 'muted'}
          data-testid="memory-status"
        >
          {memoryStatus.text}
        </p>
      )}
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
