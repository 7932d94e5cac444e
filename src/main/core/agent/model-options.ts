/**
 * The model picker's list, for every surface (the app's picker, `pincer chat`'s `/models`): the
 * GGUF files installed on this computer, the manifest's providers, the models of each provider
 * added from the app, and the model the agent was started with. Each option has a stable id the
 * surface hands back; `select` turns it into a ModelChoice and switches the agent's model.
 *
 * Ids: `local:FILE`, `provider:NAME`, `connection:NAME:MODEL` (a model may contain ':'), `launch`.
 */
import { isLocalEngineProvider } from '../ckp/index.js';
import { listInstalled } from '../local/index.js';
import {
  CONNECTION_PROTOCOL,
  type ConnectionBook,
  ModelError,
  takesImages,
} from '../models/index.js';
import type { Agent } from './agent.js';
import type { ModelChoice } from './model-choice.js';

export type ModelOptionGroup = 'local' | 'provider' | 'connection' | 'launch';

export interface ModelOption {
  id: string;
  label: string;
  group: ModelOptionGroup;
  /** Where it comes from, as people read it: "This computer", a provider's name. */
  source: string;
  detail: string | null;
  /** What its declaration says (see ModelSwitch.takesImages): the composer asks before sending. */
  takesImages: boolean;
}

export class ModelOptions {
  private current: string | null;
  private readonly launchLabel: string;

  constructor(
    private readonly agent: Agent,
    private readonly connections: ConnectionBook,
    /** The choice the agent was opened with: offered again unless it was local or single-use. */
    private readonly launch: ModelChoice,
  ) {
    this.launchLabel = agent.models.label();
    this.current = this.launchId();
  }

  /** The option in force; null when the local default has no file yet. */
  get selectedId(): string | null {
    return this.current;
  }

  async list(): Promise<ModelOption[]> {
    const { agent } = this;
    const installed = await listInstalled(agent.catalog, agent.locations.modelsDir).catch(() => []);
    const options: ModelOption[] = installed
      // A file that failed the header check is no option (the folder scan skips it too).
      .filter((model) => !model.problem && (!model.entry || model.entry.kind === 'chat'))
      .map((model) => ({
        id: `local:${model.fileName}`,
        label: model.entry?.displayName ?? model.fileName,
        group: 'local' as const,
        source: 'This computer',
        detail: model.fileName,
        takesImages: false,
      }));
    // A manifest provider on the in-process engine is the local files above, listed once.
    for (const provider of agent.claw.providers.filter((p) => !isLocalEngineProvider(p))) {
      options.push({
        id: `provider:${provider.name}`,
        label: `${provider.name} (${provider.spec.model})`,
        group: 'provider',
        source: 'Manifest providers',
        detail: provider.spec.protocol,
        takesImages: takesImages(provider),
      });
    }
    for (const connection of this.connections.list()) {
      for (const model of connection.models) {
        options.push({
          id: `connection:${connection.name}:${model}`,
          label: model,
          group: 'connection',
          source: connection.name,
          detail: connection.endpoint,
          takesImages: connection.takesImages,
        });
      }
    }
    if (this.offersLaunch()) {
      options.push({
        id: 'launch',
        label: this.launchLabel,
        group: 'launch',
        source: 'Started with',
        detail: null,
        takesImages:
          (this.launch.kind === 'server' || this.launch.kind === 'fixed') &&
          this.launch.takesImages === true,
      });
    }
    return options;
  }

  /** The option an id, a file, a provider or a model name names (what `/model NAME` accepts). */
  async find(text: string): Promise<ModelOption | undefined> {
    const options = await this.list();
    const exact = options.find((option) => option.id === text);
    if (exact) return exact;
    // "local": the default local model (the catalog's, else the first file).
    if (text === 'local') {
      const local = options.filter((option) => option.group === 'local');
      const fallback = this.agent.catalog.models.find(
        (m) => m.name === this.agent.catalog.defaultChat,
      );
      return local.find((option) => option.detail === fallback?.fileName) ?? local[0];
    }
    const loose = options.filter(
      (option) =>
        option.label === text ||
        option.detail === text ||
        option.id.endsWith(`:${text}`) ||
        (option.group === 'provider' && option.id === `provider:${text}`),
    );
    return loose.length === 1 ? loose[0] : undefined;
  }

  /** Switches the agent to this option; refused while a run is in progress. */
  async select(id: string): Promise<void> {
    await this.agent.selectModel(await this.choiceOf(id));
    this.current = id;
  }

  private async choiceOf(id: string): Promise<ModelChoice> {
    const unknown = () => new ModelError('unknown_model', `no model "${id}" to choose`);
    if (id === 'launch') {
      if (!this.offersLaunch()) throw unknown();
      return this.launch;
    }
    const [kind, ...rest] = id.split(':');
    const name = rest.join(':');
    if (kind === 'local') {
      const installed = await listInstalled(this.agent.catalog, this.agent.locations.modelsDir);
      const found = installed.find((model) => model.fileName === name);
      if (!found) throw new ModelError('unknown_model', `"${name}" is not installed`);
      const toolFormat = this.launch.kind === 'local' ? this.launch.toolFormat : undefined;
      return { kind: 'local', modelPath: found.path, toolFormat };
    }
    if (kind === 'provider') {
      if (!this.agent.claw.providers.some((p) => p.name === name)) throw unknown();
      return { kind: 'provider', name };
    }
    if (kind === 'connection') {
      const [connectionName = '', ...model] = rest;
      const connection = this.connections.get(connectionName);
      const modelName = model.join(':');
      if (!connection || !modelName) throw unknown();
      return {
        kind: 'server',
        protocol: CONNECTION_PROTOCOL[connection.kind],
        endpoint: connection.endpoint,
        model: modelName,
        apiKeyRef: connection.keyName ?? undefined,
        takesImages: connection.takesImages,
      };
    }
    throw unknown();
  }

  /** A fixed model that is disposed when switched away from cannot be chosen again. */
  private offersLaunch(): boolean {
    const launch = this.launch;
    if (launch.kind === 'local' || launch.kind === 'provider') return false;
    return !(launch.kind === 'fixed' && launch.dispose);
  }

  private launchId(): string | null {
    const launch = this.launch;
    if (launch.kind === 'provider') return `provider:${launch.name}`;
    if (launch.kind !== 'local') return this.offersLaunch() ? 'launch' : null;
    const file = this.agent.models.selectedFile;
    return file ? `local:${file}` : null;
  }
}
