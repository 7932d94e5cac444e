/**
 * The user's standing instructions and the sampling temperature, used from the next run on, and
 * the local model's context size, used from its next load (a loaded model reloads at once when
 * no reply is running).
 */
import { type FormEvent, useCallback, useState } from 'react';
import { formatBytes } from '../../../../shared/format';
import { CONTEXT_SIZES, type ModelsState, type Settings } from '../../../../shared/ipc';
import { useBridge, useCoreEvents } from '../../lib/bridge-context';
import { useLoad } from './use-load';

/** The engine's own bound when the context size is automatic. */
const AUTOMATIC_CONTEXT = 8192;

type ContextSize = Settings['contextSize'];

function parseSize(value: string): ContextSize {
  return CONTEXT_SIZES.find((size) => String(size) === value) ?? null;
}

export function BehaviourSection({
  settings,
  onChange,
}: {
  settings: Settings;
  onChange: (patch: Partial<Settings>) => void;
}) {
  const bridge = useBridge();
  const [models, , reloadModels] = useLoad(
    useCallback(() => bridge.invoke('models.list', {}), [bridge]),
  );
  useCoreEvents((event) => {
    if (event.topic === 'models.changed') reloadModels();
  });
  const [prompt, setPrompt] = useState(settings.systemPrompt);
  const [temperature, setTemperature] = useState(settings.temperature?.toString() ?? '');
  const [contextSize, setContextSize] = useState<ContextSize>(settings.contextSize);
  const wanted = temperature.trim() === '' ? null : Number(temperature);
  const valid = wanted === null || (Number.isFinite(wanted) && wanted >= 0 && wanted <= 2);

  function save(event: FormEvent) {
    event.preventDefault();
    if (valid) onChange({ systemPrompt: prompt, temperature: wanted, contextSize });
  }
  return (
    <form className="settings-section behaviour" onSubmit={save}>
      <label className="block">
        <strong>System prompt</strong>
        <span className="muted block">
          Added to every conversation after Pincer’s own context, from the next reply on.
        </span>
        <textarea
          aria-label="System prompt"
          rows={6}
          maxLength={8000}
          value={prompt}
          onChange={(event) => setPrompt(event.target.value)}
        />
      </label>
      <label className="block">
        <strong>Temperature</strong>
        <span className="muted block">0 to 2; empty keeps the model’s default.</span>
        <input
          aria-label="Temperature"
          type="number"
          min={0}
          max={2}
          step={0.1}
          value={temperature}
          onChange={(event) => setTemperature(event.target.value)}
        />
      </label>
      <label className="block">
        <strong>Context size (local model)</strong>
        <span className="muted block">
          How many tokens of conversation, instructions and tool definitions the local model holds
          at once. Larger remembers more but needs more memory. It applies when the model next
          loads; a loaded model reloads at once when no reply is running, else after the reply.
        </span>
        <select
          aria-label="Context size"
          value={contextSize === null ? 'auto' : String(contextSize)}
          onChange={(event) => setContextSize(parseSize(event.target.value))}
        >
          <option value="auto">Automatic (up to {AUTOMATIC_CONTEXT} tokens)</option>
          {CONTEXT_SIZES.map((size) => (
            <option key={size} value={String(size)}>
              {size} tokens
            </option>
          ))}
        </select>
        <ContextFacts models={models} size={contextSize} saved={settings.contextSize} />
      </label>
      <button type="submit" className="primary" disabled={!valid}>
        Save
      </button>
    </form>
  );
}

/** What the chosen size comes to for the selected local model: its bound and the memory it needs. */
function ContextFacts({
  models,
  size,
  saved,
}: {
  models: ModelsState | null;
  size: ContextSize;
  saved: ContextSize;
}) {
  const local = models?.localModel;
  if (!models || !local) {
    return (
      <span className="muted block" data-testid="context-facts">
        No local model is selected: the size applies when one is.
      </span>
    );
  }
  // Automatic is the launch's size where one was given (known while nothing is saved here).
  const asked = size ?? (saved === null ? local.contextSize : null) ?? AUTOMATIC_CONTEXT;
  const trained = local.trainedContext;
  const used = trained ? Math.min(asked, trained) : asked;
  const kv = local.kvBytesPerToken ? local.kvBytesPerToken * used : null;
  return (
    <span className="muted block" data-testid="context-facts">
      {trained && asked > trained
        ? `This model was trained for ${trained} tokens: it gets ${trained}. `
        : ''}
      {kv !== null
        ? `About ${formatBytes(local.fileBytes + kv)} of memory (model ${formatBytes(local.fileBytes)}, context ${formatBytes(kv)}). `
        : ''}
      {models.kind === 'local' && models.loaded && models.contextWindow !== null
        ? `Loaded now with ${models.contextWindow} tokens.`
        : ''}
    </span>
  );
}
