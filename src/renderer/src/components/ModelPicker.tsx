/**
 * The model picker under the message box: local GGUF files, the manifest's providers, the models
 * of each provider added in Settings, and the model the app was started with. A choice applies
 * at once, and is remembered for this conversation and as the default for new ones.
 */
import type { ModelOption, ModelsState } from '../../../shared/ipc';

function grouped(options: ModelOption[]): Array<[string, ModelOption[]]> {
  const groups = new Map<string, ModelOption[]>();
  for (const option of options) {
    const list = groups.get(option.source) ?? [];
    list.push(option);
    groups.set(option.source, list);
  }
  return [...groups];
}

export function ModelPicker({
  state,
  value,
  busy,
  onPick,
  onAddProvider,
}: {
  state: ModelsState | null;
  /** The option this conversation answers with. */
  value: string | null;
  busy: boolean;
  onPick: (id: string) => void;
  onAddProvider: () => void;
}) {
  const options = state?.options ?? [];
  const known = value !== null && options.some((o) => o.id === value);
  return (
    <div className="model-picker">
      <label>
        <span className="sr-only">Model</span>
        <select
          aria-label="Model"
          data-testid="model-picker"
          value={known ? value : ''}
          disabled={busy || options.length === 0}
          title={busy ? 'A reply is running: the model can change once it ends' : 'Model'}
          onChange={(event) => {
            if (event.target.value) onPick(event.target.value);
          }}
        >
          {!known && (
            <option value="" disabled>
              {options.length === 0 ? 'No model yet' : (state?.active ?? 'Choose a model')}
            </option>
          )}
          {grouped(options).map(([source, list]) => (
            <optgroup key={source} label={source}>
              {list.map((option) => (
                <option key={option.id} value={option.id}>
                  {option.label}
                </option>
              ))}
            </optgroup>
          ))}
        </select>
      </label>
      <button type="button" className="ghost small" onClick={onAddProvider}>
        Add provider
      </button>
    </div>
  );
}
