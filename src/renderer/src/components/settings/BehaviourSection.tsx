/** The user's standing instructions and the sampling temperature, used from the next run on. */
import { type FormEvent, useState } from 'react';
import type { Settings } from '../../../../shared/ipc';

export function BehaviourSection({
  settings,
  onChange,
}: {
  settings: Settings;
  onChange: (patch: Partial<Settings>) => void;
}) {
  const [prompt, setPrompt] = useState(settings.systemPrompt);
  const [temperature, setTemperature] = useState(settings.temperature?.toString() ?? '');
  const wanted = temperature.trim() === '' ? null : Number(temperature);
  const valid = wanted === null || (Number.isFinite(wanted) && wanted >= 0 && wanted <= 2);

  function save(event: FormEvent) {
    event.preventDefault();
    if (valid) onChange({ systemPrompt: prompt, temperature: wanted });
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
      <button type="submit" className="primary" disabled={!valid}>
        Save
      </button>
    </form>
  );
}
