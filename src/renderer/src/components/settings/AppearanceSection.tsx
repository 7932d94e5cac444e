/** Theme, sending and reasoning preferences, and the keyboard shortcuts. */
import type { Settings } from '../../../../shared/ipc';
import { APPROVE_KEYS, APPROVE_SESSION_KEYS, DENY_KEYS, MOD } from '../../lib/keys';

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
          <kbd>{APPROVE_KEYS}</kbd> / <kbd>{APPROVE_SESSION_KEYS}</kbd>
        </dt>
        <dd>
          approve the oldest waiting call of the conversation in view (once / for the session), when
          the focus is not in a text field; a destructive call takes a click
        </dd>
        <dt>
          <kbd>{DENY_KEYS}</kbd>
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
        <dt>
          <kbd>{MOD}+K</kbd>
        </dt>
        <dd>search every conversation</dd>
      </dl>
    </div>
  );
}
