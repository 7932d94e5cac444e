/**
 * The OpenAI-compatible endpoint as the app runs it: off until the user turns it on, then
 * serving the app's own loaded engine (never a second copy) through the fair gate, with a bearer
 * key kept in the secret store by name and shown once, loopback unless the user picks one of
 * this machine's LAN addresses, and a metadata-only request log. Its settings persist, so it
 * comes back on at the next launch if it was on.
 */
import { access } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { OpenAiEndpointView, OpenAiRequestLogEntry } from '../../../shared/ipc-schemas.js';
import type { ModelSwitch } from '../agent/index.js';
import type { ModelCatalog } from '../local/index.js';
import { errorMessage } from '../local/index.js';
import {
  DEFAULT_PORT,
  generateApiKey,
  isLoopbackHost,
  LocalBackend,
  type OpenAiServer,
  type RequestLogEntry,
  startOpenAiServer,
} from '../openai-server/index.js';
import type { SecretStore } from '../secrets/index.js';
import { InvalidRequest } from './types.js';

/** The secret store entry the key lives in (the key itself never leaves except once, on creation). */
export const ENDPOINT_KEY_NAME = 'pincer.openai-endpoint.key';
const LOG_SIZE = 200;

export interface EndpointSettings {
  enabled: boolean;
  host: string;
  port: number;
}

export const DEFAULT_ENDPOINT_SETTINGS: EndpointSettings = {
  enabled: false,
  host: '127.0.0.1',
  port: DEFAULT_PORT,
};

export interface EndpointDeps {
  models: ModelSwitch;
  secrets: SecretStore;
  catalog: ModelCatalog;
  modelsDir: string;
  load(): Partial<EndpointSettings>;
  save(settings: EndpointSettings): void;
  /** Told whenever the view changes (state, counts, a new log entry). */
  changed(view: OpenAiEndpointView): void;
  /** Told when serving loaded the shared model (the app's model state changed too). */
  modelLoaded(): void;
}

export class OpenAiEndpoint {
  private settings: EndpointSettings;
  private server?: OpenAiServer;
  private backend?: LocalBackend;
  private model: string | null = null;
  private error: string | null = null;
  private hasKey = false;
  private readonly log: OpenAiRequestLogEntry[] = [];
  private logged = 0;
  /** Starts and stops run one after another (a toggle clicked twice, a model switch). */
  private chain: Promise<unknown> = Promise.resolve();
  private readonly stopGate: () => void;
  private readonly stopSwitch: () => void;

  constructor(private readonly deps: EndpointDeps) {
    this.settings = { ...DEFAULT_ENDPOINT_SETTINGS, ...deps.load() };
    this.stopGate = deps.models.gate.onChange(() => this.emit());
    // Another model chosen in the app: the endpoint serves that one from now on.
    this.stopSwitch = deps.models.onSwitch(() => {
      if (this.settings.enabled) void this.serialized(() => this.restart());
    });
  }

  view(): OpenAiEndpointView {
    const stats = Object.values(this.server?.stats() ?? {});
    const running = stats.reduce((sum, lane) => sum + lane.running, 0);
    const waiting = stats.reduce((sum, lane) => sum + lane.waiting, 0);
    // A request the server runs may still wait at the gate behind the app's turn.
    const atGate = this.server ? this.deps.models.gate.stats().waiting.external : 0;
    return {
      enabled: this.settings.enabled,
      running: this.server !== undefined,
      loading: this.backend?.status() === 'loading',
      baseUrl: this.server?.baseUrl ?? null,
      host: this.settings.host,
      port: this.server?.port ?? this.settings.port,
      lanAddresses: lanAddresses(),
      keyName: ENDPOINT_KEY_NAME,
      hasKey: this.hasKey,
      model: this.model,
      error: this.error,
      active: Math.max(0, running - atGate),
      queued: waiting + atGate,
    };
  }

  requestLog(): OpenAiRequestLogEntry[] {
    return [...this.log];
  }

  /** Starts it if it was on when the app last closed. */
  async resume(): Promise<void> {
    this.hasKey =
      (await this.deps.secrets.get(ENDPOINT_KEY_NAME).catch(() => undefined)) !== undefined;
    if (this.settings.enabled) await this.serialized(() => this.restart());
  }

  /**
   * Turns it on or off, or moves it. `key` is set only when this call created the key: the one
   * time it is shown.
   */
  configure(
    patch: Partial<EndpointSettings>,
  ): Promise<{ endpoint: OpenAiEndpointView; key: string | null }> {
    return this.serialized(async () => {
      const next = { ...this.settings, ...patch };
      checkHost(next.host);
      let key: string | null = null;
      if (next.enabled && !(await this.deps.secrets.get(ENDPOINT_KEY_NAME))) {
        key = await this.newKey();
      }
      const same = JSON.stringify(next) === JSON.stringify(this.settings);
      this.settings = next;
      this.deps.save(next);
      if (!same || !this.server) await this.restart();
      return { endpoint: this.view(), key };
    });
  }

  /** A new key (the old one stops working at once); shown this once. */
  rotateKey(): Promise<{ endpoint: OpenAiEndpointView; key: string }> {
    return this.serialized(async () => {
      const key = await this.newKey();
      if (this.settings.enabled) await this.restart();
      return { endpoint: this.view(), key };
    });
  }

  async close(): Promise<void> {
    this.stopGate();
    this.stopSwitch();
    await this.serialized(() => this.stop());
  }

  private async newKey(): Promise<string> {
    const key = generateApiKey();
    await this.deps.secrets.set(ENDPOINT_KEY_NAME, key);
    this.hasKey = true;
    return key;
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const next = this.chain.then(work);
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async restart(): Promise<void> {
    await this.stop();
    this.error = null;
    if (this.settings.enabled) {
      try {
        await this.start();
      } catch (error) {
        await this.stop();
        this.error = errorMessage(error);
      }
    }
    this.emit();
  }

  private async start(): Promise<void> {
    const engine = this.deps.models.sharedEngine('external');
    if (!engine) {
      throw new Error(
        'The endpoint serves the local model, and the app is not using one: choose a local model in Settings → Models',
      );
    }
    const apiKey = (await this.deps.secrets.get(ENDPOINT_KEY_NAME))?.value;
    this.hasKey = apiKey !== undefined;
    if (!apiKey) throw new Error(`The key ${ENDPOINT_KEY_NAME} is gone: create a new key`);
    // One chat slot (plus one for raw completions): the app's conversations keep the rest.
    const backend = new LocalBackend({
      engine,
      slots: 1,
      embeddingModelPath: await this.embeddingModel(),
    });
    this.server = await startOpenAiServer({
      backend,
      host: this.settings.host,
      port: this.settings.port,
      apiKey,
      onLog: (entry) => this.record(entry),
      onActivity: () => this.emit(),
    });
    this.backend = backend;
    this.model = backend.chatModel;
    // One generation at a time while shared; app and clients take turns.
    this.deps.models.gate.setLimit(1);
    // Requests get 503 until the shared model is in memory.
    void backend.load().then(
      () => {
        this.deps.modelLoaded();
        this.emit();
      },
      (error: unknown) => {
        this.error = errorMessage(error);
        this.emit();
      },
    );
  }

  private async stop(): Promise<void> {
    const [server, backend] = [this.server, this.backend];
    this.server = undefined;
    this.backend = undefined;
    this.model = null;
    this.deps.models.gate.setLimit(Number.POSITIVE_INFINITY);
    await server?.close();
    await backend?.close();
  }

  private record(entry: RequestLogEntry): void {
    // Metadata only: what the server logs never holds prompts, replies or keys.
    this.log.unshift({
      id: ++this.logged,
      at: new Date().toISOString(),
      method: entry.method,
      path: entry.path,
      status: entry.status,
      outcome: entry.outcome,
      model: entry.model ?? null,
      stream: entry.stream ?? false,
      promptTokens: entry.promptTokens ?? null,
      cachedTokens: entry.cachedTokens ?? null,
      completionTokens: entry.completionTokens ?? null,
      durationMs: entry.durationMs,
    });
    this.log.length = Math.min(this.log.length, LOG_SIZE);
    this.emit();
  }

  private emit(): void {
    this.deps.changed(this.view());
  }

  private async embeddingModel(): Promise<string | undefined> {
    const entry = this.deps.catalog.models.find(
      (m) => m.name === this.deps.catalog.defaultEmbedding,
    );
    if (!entry) return undefined;
    const file = path.join(this.deps.modelsDir, entry.fileName);
    return access(file).then(
      () => file,
      () => undefined,
    );
  }
}

/** This machine's non-internal addresses: the only other hosts the endpoint may listen on. */
function lanAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flat()
    .filter((address) => address !== undefined && !address.internal)
    .map((address) => (address as os.NetworkInterfaceInfo).address);
}

function checkHost(host: string): void {
  if (isLoopbackHost(host) || lanAddresses().includes(host)) return;
  throw new InvalidRequest(
    `${host} is not an address of this machine: use 127.0.0.1, or one of ${lanAddresses().join(', ') || '(no network address found)'}`,
  );
}
