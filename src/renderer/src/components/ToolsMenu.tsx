/**
 * The composer's Tools menu: the tools this conversation's model may be offered, each turned on
 * or off for this conversation only. A tool turned off is left out of the model's tool list, and
 * a call to it (typed, or a model naming it anyway) is refused by policy with the reason.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { errorText } from '../../../shared/format';
import type { SessionTool } from '../../../shared/ipc';
import { useBridge } from '../lib/bridge-context';
import { TierBadge } from './ToolCard';

export function ToolsMenu({ sessionId }: { sessionId: string | null }) {
  const bridge = useBridge();
  const [open, setOpen] = useState(false);
  const [tools, setTools] = useState<SessionTool[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState<string | null>(null);
  const box = useRef<HTMLDivElement>(null);

  // Loaded for the conversation (the menu is keyed by it), and again each time it opens: an MCP
  // server may have connected since.
  const load = useCallback(() => {
    if (!sessionId) return () => {};
    let current = true;
    setError(null);
    bridge
      .invoke('sessions.tools.get', { sessionId })
      .then((list) => current && setTools(list))
      .catch((cause: unknown) => current && setError(errorText(cause)));
    return () => {
      current = false;
    };
  }, [bridge, sessionId]);
  useEffect(load, [load]);

  useEffect(() => {
    if (!open) return;
    const outside = (event: MouseEvent) => {
      if (box.current && !box.current.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', outside);
    return () => document.removeEventListener('mousedown', outside);
  }, [open]);

  async function toggle(tool: SessionTool) {
    if (!sessionId) return;
    setSaving(tool.name);
    setError(null);
    // Shown at once; the core's answer replaces it (or the error puts it back).
    const before = tools;
    setTools(
      (list) =>
        list?.map((t) => (t.name === tool.name ? { ...t, enabled: !tool.enabled } : t)) ?? list,
    );
    try {
      setTools(
        await bridge.invoke('sessions.tools.set', {
          sessionId,
          tool: tool.name,
          enabled: !tool.enabled,
        }),
      );
    } catch (cause) {
      setTools(before);
      setError(errorText(cause));
    } finally {
      setSaving(null);
    }
  }

  const off = tools?.filter((tool) => !tool.enabled).length ?? 0;
  return (
    <div className="tools-menu" ref={box}>
      <button
        type="button"
        className="ghost small"
        aria-expanded={open}
        aria-haspopup="dialog"
        disabled={!sessionId}
        title={
          sessionId
            ? 'Tools this conversation may use'
            : 'Tools can be turned off once the conversation has started'
        }
        onClick={() => {
          if (!open) load();
          setOpen(!open);
        }}
      >
        {off > 0 ? `Tools (${off} off)` : 'Tools'}
      </button>
      {open && sessionId && (
        <div
          className="tools-popover"
          role="dialog"
          aria-label="Tools for this conversation"
          onKeyDown={(event) => {
            if (event.key === 'Escape') setOpen(false);
          }}
        >
          <p className="muted">
            Turned off here, a tool is not offered to the model in this conversation, and a call to
            it is refused. Other conversations keep their own choice.
          </p>
          {error && <p className="error">{error}</p>}
          {tools === null && !error && <p className="muted">Loading…</p>}
          {tools?.length === 0 && <p className="muted">No tools are offered to this agent.</p>}
          <ul>
            {tools?.map((tool) => (
              <li key={tool.name}>
                <label>
                  <input
                    type="checkbox"
                    checked={tool.enabled}
                    disabled={saving !== null}
                    onChange={() => void toggle(tool)}
                  />
                  <code>{tool.name}</code> <TierBadge tier={tool.tier} />
                  {tool.source === 'mcp' && <span className="badge">MCP</span>}
                </label>
                <span className="muted block">{tool.description}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
