/** Theme, sending and reasoning preferences, and the keyboard shortcuts. */
import type { Settings } from '../../../../shared/ipc';

export function AppearanceSection({
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
