/**
 * "Add provider": OpenAI, Anthropic, Gemini, or any OpenAI-compatible server (Ollama, LM Studio)
 * at an address. "Test connection" asks the server for its models; "Add" tests again and saves
 * it, the key going into the secret store by name. The key never comes back to this window.
 */
import { type FormEvent, useState } from 'react';
import { errorText } from '../../../../shared/format';
import type { ConnectionKind } from '../../../../shared/ipc';
import { useBridge } from '../../lib/bridge-context';

/**
 * Whether a kind's models take images unless changed here (the core's CONNECTION_TAKES_IMAGES):
 * the OpenAI, Anthropic and Gemini chat models read images; a local server's often do not.
 */
const TAKES_IMAGES: Record<ConnectionKind, boolean> = {
  'openai-compatible': false,
  openai: true,
  anthropic: true,
  gemini: true,
};

const KINDS: Array<[ConnectionKind, string, string]> = [
  ['openai-compatible', 'OpenAI-compatible (Ollama, LM Studio, vLLM)', 'http://127.0.0.1:11434/v1'],
  ['openai', 'OpenAI', 'https://api.openai.com/v1'],
  ['anthropic', 'Anthropic', 'https://api.anthropic.com/v1'],
  ['gemini', 'Google Gemini', 'https://generativelanguage.googleapis.com/v1beta'],
];

export function AddProvider({ onAdded }: { onAdded: () => void }) {
  const bridge = useBridge();
  const [kind, setKind] = useState<ConnectionKind>('openai-compatible');
  const [name, setName] = useState('');
  const [endpoint, setEndpoint] = useState('');
  const [key, setKey] = useState('');
  const [takesImages, setTakesImages] = useState(TAKES_IMAGES['openai-compatible']);
  const [models, setModels] = useState<string[] | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [working, setWorking] = useState(false);
  const placeholder = KINDS.find(([k]) => k === kind)?.[2] ?? '';
  const needsEndpoint = kind === 'openai-compatible';
  const request = {
    kind,
    ...(endpoint.trim() ? { endpoint: endpoint.trim() } : {}),
    ...(key ? { key } : {}),
  };

  async function test() {
    setWorking(true);
    setStatus('Asking the server for its models…');
    try {
      const found = await bridge.invoke('providers.test', request);
      setModels(found.models);
      setStatus(`Connected: ${found.models.length} model${found.models.length === 1 ? '' : 's'}`);
    } catch (cause) {
      setModels(null);
      setStatus(`Could not connect: ${errorText(cause)}`);
    } finally {
      setWorking(false);
    }
  }

  async function add(event: FormEvent) {
    event.preventDefault();
    setWorking(true);
    setStatus('Adding…');
    try {
      const added = await bridge.invoke('providers.add', {
        ...request,
        name: name.trim(),
        takesImages,
      });
      setStatus(`Added ${added.name}: its ${added.models.length} models are in the model picker`);
      setKey('');
      setModels(null);
      onAdded();
    } catch (cause) {
      setStatus(`Not added: ${errorText(cause)}`);
    } finally {
      setWorking(false);
    }
  }

  return (
    <form className="card add-provider" onSubmit={add} aria-label="Add provider">
      <h3>Add provider</h3>
      <label>
        Kind
        <select
          value={kind}
          onChange={(e) => {
            const next = e.target.value as ConnectionKind;
            setKind(next);
            setTakesImages(TAKES_IMAGES[next]);
            setModels(null);
          }}
        >
          {KINDS.map(([id, label]) => (
            <option key={id} value={id}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label>
        Name
        <input
          value={name}
          placeholder={kind === 'openai-compatible' ? 'ollama' : kind}
          maxLength={40}
          onChange={(e) => setName(e.target.value)}
        />
      </label>
      <label>
        Address{needsEndpoint ? '' : ' (optional)'}
        <input
          value={endpoint}
          placeholder={placeholder}
          maxLength={2000}
          onChange={(e) => setEndpoint(e.target.value)}
        />
      </label>
      <label>
        API key{needsEndpoint ? ' (if the server needs one)' : ''}
        <input
          type="password"
          autoComplete="off"
          value={key}
          maxLength={16_384}
          onChange={(e) => setKey(e.target.value)}
        />
      </label>
      <label className="toggle">
        <input
          type="checkbox"
          checked={takesImages}
          onChange={(e) => setTakesImages(e.target.checked)}
        />
        Its models take images (turn on for a vision model: images attached to a message go to it)
      </label>
      <div className="row">
        <button
          type="button"
          disabled={working || (needsEndpoint && !endpoint.trim())}
          onClick={() => void test()}
        >
          Test connection
        </button>
        <button
          type="submit"
          className="primary"
          disabled={working || !name.trim() || (needsEndpoint && !endpoint.trim())}
        >
          Add
        </button>
      </div>
      {status && (
        <p role="status" data-testid="provider-status">
          {status}
        </p>
      )}
      {models && models.length > 0 && (
        <ul className="provider-models" aria-label="Models the server lists">
          {models.slice(0, 50).map((model) => (
            <li key={model}>
              <code>{model}</code>
            </li>
          ))}
        </ul>
      )}
    </form>
  );
}
