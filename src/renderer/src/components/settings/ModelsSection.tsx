/** Models: what answers now, the catalog with downloads (progress bar), select, load, unload. */
import { useCallback, useState } from 'react';
import { errorText, formatBytes } from '../../../../shared/format';
import { type GpuMemory, placementOf } from '../../../../shared/gpu-fit';
import type { ModelsState } from '../../../../shared/ipc';
import { useBridge, useCoreEvents } from '../../lib/bridge-context';
import { useGpuMemory } from '../../lib/gpu-memory';
import { ImportModel } from '../ImportModel';
import { useLoad } from './use-load';

export function ModelsSection() {
  const bridge = useBridge();
  const [state, error, reload, setState] = useLoad(
    useCallback(() => bridge.invoke('models.list', {}), [bridge]),
  );
  const gpu = useGpuMemory();
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
                : 'A provider: change it with the model picker under the message box'}
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
      <h3>Import a GGUF file</h3>
      <ImportModel onImported={setState} />
      <h3>Catalog</h3>
      <p className="muted" data-testid="machine-fit">
        This computer: {formatBytes(state.machineRamBytes)} of memory · {gpuLine(gpu)}
      </p>
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
                  {model.name} · {model.kind} · {formatBytes(model.sizeBytes)} download
                  {model.kind === 'chat'
                    ? ` · needs ${formatBytes(model.ramBytes)} memory${model.fits ? '' : ' (more than this computer can spare)'}`
                    : ''}
                  {model.kind === 'chat' && gpu
                    ? ` · ${PLACEMENT[placementOf(model.ramBytes, gpu)]}`
                    : ''}
                  {state.recommended === model.name ? ' · recommended here' : ''}
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
                {model.installed && model.kind === 'chat' && !model.selected && (
                  <button
                    type="button"
                    disabled={busy !== null}
                    onClick={() =>
                      act(`select ${model.name}`, () =>
                        bridge.invoke('models.select', {
                          id: model.optionId ?? `local:${model.name}`,
                        }),
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
                <button
                  type="button"
                  onClick={() =>
                    act(`select ${file}`, () =>
                      bridge.invoke('models.select', { id: `local:${file}` }),
                    )
                  }
                >
                  Use
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

const PLACEMENT = {
  gpu: 'fits in GPU memory',
  split: 'partly on the GPU',
  cpu: 'on the processor',
} as const;

function gpuLine(gpu: GpuMemory | null | undefined): string {
  if (gpu === undefined) return 'checking the GPU…';
  if (gpu === null) return 'no supported GPU: local models run on the processor';
  const name = gpu.devices.join(', ') || gpu.backend;
  return `GPU: ${name} (${gpu.backend}), ${formatBytes(gpu.freeBytes)} free of ${formatBytes(gpu.totalBytes)}`;
}
