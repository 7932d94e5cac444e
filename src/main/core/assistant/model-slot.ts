/**
 * What answers chat: either a fixed model access chosen at launch (a server, a manifest route,
 * the scripted model of the tests), or the in-process local engine, whose GGUF the UI may
 * select, load and unload. The runtime talks to `access`, which always routes to the current
 * choice, so a selection takes effect on the next model call.
 */
import path from 'node:path';
import type { ModelCatalog } from '../local/catalog.js';
import { LocalEngine } from '../local/engine.js';
import { type ModelLocations, resolveChatModel } from '../local/model-manager.js';
import { LocalModelProvider } from '../local/provider.js';
import { ModelError } from '../models/errors.js';
import { providerId } from '../models/ids.js';
import type { ModelProvider } from '../models/types.js';
import { type ModelAccess, viaProvider } from '../runtime/hooks.js';

export type ModelChoice =
  | {
      kind: 'local';
      /** A GGUF file; else PINCER_MODEL, the bundled model, then the data dir's. */
      modelPath?: string;
      threads?: number;
      contextSize?: number;
      temperature?: number;
    }
  | {
      kind: 'fixed';
      access: ModelAccess;
      /** How the UI names it, e.g. "openai/gpt-4o" or "scripted". */
      label: string;
      scripted?: boolean;
      dispose?: () => Promise<void>;
    };

export class ModelSlot {
  private engine: LocalEngine | undefined;
  private opening: Promise<LocalEngine> | undefined;
  private selectedPath: string | undefined;
  private resolved = false;
  readonly access: ModelAccess;

  constructor(
    private readonly choice: ModelChoice,
    private readonly catalog: ModelCatalog,
    private readonly locations: ModelLocations,
  ) {
    if (choice.kind === 'local') {
      this.selectedPath = choice.modelPath;
      this.resolved = choice.modelPath !== undefined;
    }
    const local: ModelProvider = {
      id: providerId('local'),
      protocol: 'local',
      stream: (model, request) => this.streamLocal(model, request),
    };
    this.access =
      choice.kind === 'fixed'
        ? choice.access
        : { turn: (request) => viaProvider(local, this.selectedFile ?? 'none').turn(request) };
  }

  get kind(): 'local' | 'remote' | 'scripted' {
    if (this.choice.kind === 'local') return 'local';
    return this.choice.scripted ? 'scripted' : 'remote';
  }

  get loaded(): boolean {
    return this.choice.kind === 'fixed' || (this.engine?.loaded ?? false);
  }

  /** The selected GGUF's file name (never its folder: paths stay in the core). */
  get selectedFile(): string | undefined {
    return this.selectedPath ? path.basename(this.selectedPath) : undefined;
  }

  label(): string {
    if (this.choice.kind === 'fixed') return this.choice.label;
    return this.selectedFile ? `local/${this.selectedFile}` : 'local (no model installed)';
  }

  /** Finds the default local model once, the way `pincer run` does. */
  async resolveDefault(): Promise<void> {
    if (this.choice.kind !== 'local' || this.resolved) return;
    this.resolved = true;
    const found = await resolveChatModel(this.catalog, this.locations, { env: process.env }).catch(
      () => undefined,
    );
    this.selectedPath ??= found?.path;
  }

  /** Switches the local engine to another GGUF file (the old model is unloaded first). */
  async select(file: string): Promise<void> {
    if (this.choice.kind !== 'local') {
      throw new Error(`the model was fixed at launch (${this.label()}); restart to change it`);
    }
    await this.unload();
    this.selectedPath = file;
    this.resolved = true;
  }

  async load(): Promise<void> {
    if (this.choice.kind !== 'local') return;
    await (await this.open()).load();
  }

  async unload(): Promise<void> {
    const engine = this.engine;
    this.engine = undefined;
    this.opening = undefined;
    await engine?.dispose();
  }

  async dispose(): Promise<void> {
    await this.unload();
    if (this.choice.kind === 'fixed') await this.choice.dispose?.();
  }

  private async open(): Promise<LocalEngine> {
    await this.resolveDefault();
    const file = this.selectedPath;
    if (!file) {
      throw new ModelError(
        'unknown_model',
        'no local model is installed: pull one in Settings → Models',
        {
          provider: providerId('local'),
        },
      );
    }
    const choice = this.choice.kind === 'local' ? this.choice : undefined;
    this.opening ??= (async () => {
      const engine = new LocalEngine({
        modelPath: file,
        runtime: { threads: choice?.threads },
        contextSize: choice?.contextSize,
        maxConversations: 4,
        idleTimeoutMs: 0,
      });
      await engine.load();
      this.engine = engine;
      return engine;
    })().catch((error: unknown) => {
      this.opening = undefined;
      throw error;
    });
    return this.opening;
  }

  private async *streamLocal(model: string, request: Parameters<ModelProvider['stream']>[1]) {
    const engine = await this.open();
    const temperature = this.choice.kind === 'local' ? this.choice.temperature : undefined;
    yield* new LocalModelProvider(engine, {
      id: providerId('local'),
      sampling: { temperature },
    }).stream(model, request);
  }
}
