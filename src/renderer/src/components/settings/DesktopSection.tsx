/**
 * The desktop app's own preferences: start at login, keep running in the tray when the window
 * closes, and the global shortcut that brings the window back (recorded by pressing it). In a
 * browser (`pincer gateway`) there is no desktop shell, and the section says so.
 */
import { type KeyboardEvent, useCallback, useState } from 'react';
import { errorText } from '../../../../shared/format';
import type { DesktopPreferencesViewWire, RequestOf } from '../../../../shared/ipc';
import { acceleratorOf, describeAccelerator } from '../../lib/accelerator';
import { useBridge } from '../../lib/bridge-context';
import { useLoad } from './use-load';

const mac = /Mac/.test(navigator.platform);

export function DesktopSection() {
  const bridge = useBridge();
  const [prefs, loadError, , setPrefs] = useLoad<DesktopPreferencesViewWire>(
    useCallback(() => bridge.invoke('desktop.get', {}), [bridge]),
  );
  const [recording, setRecording] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  async function change(patch: RequestOf<'desktop.set'>) {
    const before = prefs;
    // A check box shows its new state at once; a refusal puts the saved one back.
    if (before && patch.globalShortcut === undefined) setPrefs({ ...before, ...patch });
    try {
      setPrefs(await bridge.invoke('desktop.set', patch));
      setProblem(null);
    } catch (cause) {
      // Refused (a shortcut another app owns): the previous value stays, and the reason shows.
      if (before) setPrefs(before);
      setProblem(errorText(cause));
    }
  }
  function record(event: KeyboardEvent<HTMLButtonElement>) {
    // The press is the shortcut being recorded: the app's own keys (Ctrl+K search…) stay quiet.
    event.preventDefault();
    event.stopPropagation();
    if (event.key === 'Escape') {
      setRecording(false);
      return;
    }
    const accelerator = acceleratorOf(event, mac);
    if (!accelerator) return;
    if (!/\+/.test(accelerator)) {
      setProblem('A global shortcut needs a modifier (Ctrl, Alt, Shift or ⌘) with its key.');
      return;
    }
    setRecording(false);
    void change({ globalShortcut: accelerator });
  }

  if (loadError) return <p className="error-banner">{loadError}</p>;
  if (!prefs) return <p className="muted">Loading…</p>;
  if (!prefs.available) {
    return (
      <p className="muted">
        These settings belong to the desktop app (tray, start at login, global shortcut); this
        window is served by <code>pincer gateway</code>.
      </p>
    );
  }
  return (
    <div className="settings-section desktop">
      <label className="toggle">
        <input
          type="checkbox"
          checked={prefs.startAtLogin}
          onChange={(event) => void change({ startAtLogin: event.target.checked })}
        />
        Start Pincer when I log in (hidden in the tray)
      </label>
      <label className="toggle">
        <input
          type="checkbox"
          checked={prefs.closeToTray}
          onChange={(event) => void change({ closeToTray: event.target.checked })}
        />
        Keep running in the tray when the window is closed
      </label>
      <h3>Global shortcut</h3>
      <p className="muted">Brings the Pincer window back from anywhere.</p>
      <div className="row">
        {recording ? (
          <button
            type="button"
            className="shortcut recording"
            // biome-ignore lint/a11y/noAutofocus: the recorder takes the next key press
            autoFocus
            onKeyDown={record}
            onBlur={() => setRecording(false)}
          >
            Press the new shortcut… (Esc to cancel)
          </button>
        ) : (
          <>
            <kbd className="shortcut" data-testid="desktop-shortcut">
              {prefs.globalShortcut ? describeAccelerator(prefs.globalShortcut, mac) : 'none'}
            </kbd>
            <button type="button" onClick={() => setRecording(true)}>
              Change…
            </button>
            {prefs.globalShortcut && (
              <button type="button" onClick={() => void change({ globalShortcut: null })}>
                Turn off
              </button>
            )}
          </>
        )}
      </div>
      {prefs.globalShortcut && prefs.shortcutProblem && (
        <p className="muted" role="status">
          Not active: {prefs.shortcutProblem}
        </p>
      )}
      {problem && (
        <p className="error-banner" role="alert">
          {problem}
        </p>
      )}
    </div>
  );
}
