/**
 * Settings → Workspace: the folder the agent's tools read and write. The desktop opens it in the
 * file manager; the browser UI cannot reach this machine's file manager, so it shows the path to copy.
 */
import { useCallback, useState } from 'react';
import { errorText } from '../../../../shared/format';
import type { WorkspaceView } from '../../../../shared/ipc';
import { useBridge } from '../../lib/bridge-context';
import { useLoad } from './use-load';

export function WorkspaceSection() {
  const bridge = useBridge();
  const [workspace, error] = useLoad<WorkspaceView>(
    useCallback(() => bridge.invoke('workspace.get', {}), [bridge]),
  );
  const [message, setMessage] = useState<string | null>(null);

  async function open() {
    setMessage(null);
    try {
      await bridge.invoke('workspace.open', {});
    } catch (cause) {
      setMessage(errorText(cause));
    }
  }

  if (error) return <p className="error-banner">{error}</p>;
  if (!workspace) return <p className="muted">Loading…</p>;
  return (
    <div className="settings-section workspace">
      <p className="muted">
        The agent’s file tools read and write here, and nowhere else unless a policy grants it.
        Start the CLI with <code>--workspace DIR</code> to use another folder.
      </p>
      <div className="card">
        <input
          className="workspace-path"
          aria-label="Workspace folder"
          readOnly
          value={workspace.path}
          onFocus={(event) => event.target.select()}
        />
        {workspace.canOpen ? (
          <button type="button" onClick={() => void open()}>
            Open folder
          </button>
        ) : (
          <p className="muted">Copy the path to open it on this machine.</p>
        )}
      </div>
      {message && <p className="error-banner">{message}</p>}
    </div>
  );
}
