/**
 * The first run: no model on this computer and none connected. Three ways to start, each with
 * what it costs: the recommended download (its size, the memory it needs, this computer's, and
 * whether it fits in GPU memory), a GGUF file already at hand, or a provider.
 */

import { errorText, formatBytes } from '../../../shared/format';
import { placementText } from '../../../shared/gpu-fit';
import type { ModelsState } from '../../../shared/ipc';
import { useBridge } from '../lib/bridge-context';
import { useGpuMemory } from '../lib/gpu-memory';
import { Logo } from './Icons';
import { ImportModel } from './ImportModel';

export function FirstRun({
  models,
  onModels,
  onAddProvider,
  onError,
}: {
  models: ModelsState;
  onModels: (state: ModelsState) => void;
  onAddProvider: () => void;
  onError: (message: string) => void;
}) {
  const bridge = useBridge();
  const gpu = useGpuMemory();
  const pick = models.catalog.find((m) => m.name === models.recommended);
  const pull = pick?.pull;
  return (
    <div className="empty-state first-run" data-testid="first-run">
      <div className="empty-logo" aria-hidden="true">
        <Logo size={56} />
      </div>
      <h2>Choose a model to start</h2>
      <p className="muted">
        There is no model on this computer yet. Pincer can run one here, offline, or talk to a
        provider you connect.
      </p>
      <div className="first-run-options">
        {pick && (
          <section className="card">
            <h3>Download {pick.displayName}</h3>
            <p className="muted" data-testid="recommended-fit">
              {formatBytes(pick.sizeBytes)} download · needs about {formatBytes(pick.ramBytes)} of
              memory; this computer has {formatBytes(models.machineRamBytes)}
              {pick.fits ? '' : ' (it may run slowly)'}
            </p>
            <p className="muted" data-testid="recommended-gpu">
              {gpu === undefined
                ? 'Checking the GPU…'
                : sentence(placementText(pick.ramBytes, gpu))}
            </p>
            {pull?.state === 'running' ? (
              <progress
                max={pull.totalBytes || 1}
                value={pull.downloadedBytes}
                aria-label={`Download of ${pick.displayName}`}
              />
            ) : (
              <button
                type="button"
                className="primary"
                onClick={() =>
                  bridge
                    .invoke('models.pull', { name: pick.name })
                    .catch((cause: unknown) => onError(errorText(cause)))
                }
              >
                Download
              </button>
            )}
            {pull?.state === 'failed' && <p className="error-banner">Failed: {pull.error}</p>}
          </section>
        )}
        <section className="card">
          <h3>Import a GGUF file</h3>
          <p className="muted">A model file you already have; it is copied into Pincer's models.</p>
          <ImportModel onImported={onModels} />
        </section>
        <section className="card">
          <h3>Connect a provider</h3>
          <p className="muted">
            OpenAI, Anthropic, Gemini, or a server such as Ollama or LM Studio.
          </p>
          <button type="button" onClick={onAddProvider}>
            Add provider
          </button>
        </section>
      </div>
    </div>
  );
}

const sentence = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
