/**
 * The files a finished, writing tool call named, on its tool card (writtenPathArguments: the
 * generic reading the policy makes, never a tool's name); a read-only call lists nothing. The
 * desktop reveals a file in the file manager (the core confines the path to the workspace); the
 * browser shows the path only.
 */
import { useEffect, useState } from 'react';
import { errorText } from '../../../shared/format';
import type { PincerApi, WorkspaceView } from '../../../shared/ipc';
import { writtenPathArguments } from '../../../shared/written-paths';
import { useBridge } from '../lib/bridge-context';
import type { ToolCardData } from './ToolCard';

/** One workspace lookup per bridge, shared by every card. */
const views = new WeakMap<PincerApi, Promise<WorkspaceView>>();
function workspaceOf(bridge: PincerApi): Promise<WorkspaceView> {
  let view = views.get(bridge);
  if (!view) {
    view = bridge.invoke('workspace.get', {});
    view.catch(() => views.delete(bridge));
    views.set(bridge, view);
  }
  return view;
}

export function writtenPaths(call: ToolCardData): string[] {
  if (call.readOnly || call.status !== 'ok') return [];
  return writtenPathArguments(call.input);
}

export function WrittenFiles({ call }: { call: ToolCardData }) {
  const bridge = useBridge();
  const paths = writtenPaths(call);
  const [canOpen, setCanOpen] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const any = paths.length > 0;
  useEffect(() => {
    if (!any) return;
    let live = true;
    workspaceOf(bridge)
      .then((view) => live && setCanOpen(view.canOpen))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [bridge, any]);
  if (!any) return null;

  async function open(path: string) {
    setProblem(null);
    try {
      await bridge.invoke('workspace.open', { path });
    } catch (cause) {
      setProblem(errorText(cause));
    }
  }
  return (
    <div className="written-files">
      <ul aria-label="Files written">
        {paths.map((path) => (
          <li key={path}>
            <code>{path}</code>
            {canOpen && (
              <button type="button" onClick={() => void open(path)} aria-label={`Open ${path}`}>
                Open
              </button>
            )}
          </li>
        ))}
      </ul>
      {problem && <p className="error-banner">{problem}</p>}
    </div>
  );
}
