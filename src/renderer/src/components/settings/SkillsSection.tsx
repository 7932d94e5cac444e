/** Installed skills, and a search over what memory holds. */
import { type FormEvent, useCallback, useState } from 'react';
import { errorText } from '../../../../shared/format';
import type { ResponseOf } from '../../../../shared/ipc';
import { useBridge } from '../../lib/bridge-context';
import { useLoad } from './use-load';

type MemoryHits = ResponseOf<'memory.search'>;

export function SkillsSection() {
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
