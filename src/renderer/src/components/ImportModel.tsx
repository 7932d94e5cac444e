/** "Import a GGUF file": a file chooser and a drop zone; the core checks the header. */
import { type DragEvent, useRef, useState } from 'react';
import { errorText } from '../../../shared/format';
import type { ModelsState } from '../../../shared/ipc';
import { useBridge } from '../lib/bridge-context';
import { importModelFile } from '../lib/import-model';

export function ImportModel({ onImported }: { onImported: (state: ModelsState) => void }) {
  const bridge = useBridge();
  const input = useRef<HTMLInputElement>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [over, setOver] = useState(false);
  const [busy, setBusy] = useState(false);

  async function take(file: File | undefined) {
    if (!file || busy) return;
    setBusy(true);
    setStatus(`Importing ${file.name}…`);
    try {
      const done = await importModelFile(bridge, file, (fraction) =>
        setStatus(`Importing ${file.name}: ${Math.floor(fraction * 100)}%`),
      );
      setStatus(`Imported ${done.fileName}.${done.note ? ` ${done.note}` : ''}`);
      onImported(done.models);
    } catch (cause) {
      setStatus(`Not imported: ${errorText(cause)}`);
    } finally {
      setBusy(false);
      if (input.current) input.current.value = '';
    }
  }

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    void take(event.dataTransfer.files[0]);
  };

  return (
    <section
      aria-label="Import a model file"
      className={`drop-zone${over ? ' over' : ''}`}
      data-testid="model-drop-zone"
      onDragOver={(event) => {
        event.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={onDrop}
    >
      <input
        ref={input}
        type="file"
        accept=".gguf"
        hidden
        aria-label="GGUF model file"
        onChange={(event) => void take(event.target.files?.[0])}
      />
      <button type="button" disabled={busy} onClick={() => input.current?.click()}>
        Choose a GGUF file…
      </button>
      <span className="muted"> or drop one here</span>
      {status && (
        <p role="status" data-testid="import-status">
          {status}
        </p>
      )}
    </section>
  );
}
