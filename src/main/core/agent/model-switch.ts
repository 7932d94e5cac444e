/**
 * The one place a model is opened. It holds the current choice and hands the runtime an access
 * that always routes to it, so `select` takes effect on the next model call of the next run:
 * the app's model picker and `pincer chat`'s `/model` switch here without a restart. What
 * follows from the choice is decided here too: the tool format, the local grammar's bounds,
 * and which GGUF's tokenizer measures the context.
 */
import path from 'node:path';
import type { ResolvedClaw } from '../ckp/index.js';
import type { ModelCatalog } from '../local/catalog.js';
import type { LoadedModelInfo, LocalEngine } from '../local/engine.js';
import {
  type ModelLocations,
  noModelHelp,
  resolveChatModel,
  type SkippedModel,
} from '../local/model-manager.js';
import { LocalModelProvider } from '../local/provider.js';
import { type ModelAccess, viaProvider, viaRouter } from '../models/access.js';
import type { SecretLookup } from '../models/credentials.js';
import { ModelError } from '../models/errors.js';
import { routerFromManifest } from '../models/from-manifest.js';
import { HttpProvider } from '../models/http-provider.js';
import { type ProviderId, providerId } from '../models/ids.js';
import { withTextToolCalls } from '../models/text-tools.js';
import type { ModelProvider } from '../models/types.js';
import type { GrammarBounds } from '../tools/local-grammar.js';
import {
  kindOf,
  type LocalModelSettings,
  type ModelChoice,
  type ModelKind,
} from './model-choice.js';

export interface ModelSwitchDeps {
  claw: ResolvedClaw;
  secrets: SecretLookup;
  catalog: ModelCatalog;
  locations: ModelLocations;
  local: LocalModelSettings;
  env: Record<string, string | undefined>;
  /** Told about each model file the search passed over as unusable. */
  onSkip?: (skipped: SkippedModel) => void;
}

export class ModelSwitch {
  private choice: ModelChoice;
  private current: ModelAccess;
  private engine: LocalEngine | undefined;
  private opening: Promise<LocalEngine> | undefined;
  /** The local GGUF in force (the choice's path, else the default found on disk). */
  private localPath: string | undefined;
  /** Told after every switch (the root swaps the context's tokenizer). */
  private readonly listeners = new Set<() => void | Promise<void>>();
  /** What the runtime calls: always the current choice. */
  readonly access: ModelAccess = { turn: (request) => this.current.turn(request) };

  private constructor(
    private readonly deps: ModelSwitchDeps,
    first: ModelChoice,
  ) {
    this.choice = first;
    this.current = this.build(first);
  }

  static async open(deps: ModelSwitchDeps, first: ModelChoice): Promise<ModelSwitch> {
    const models = new ModelSwitch(deps, first);
    await models.resolveLocalPath();
    return models;
  }

  get kind(): ModelKind {
    return kindOf(this.choice);
  }

  /** Whether a model call could be served: false only for a local choice with no model on disk. */
  get available(): boolean {
    return this.choice.kind !== 'local' || this.localPath !== undefined;
  }

  get loaded(): boolean {
    return this.choice.kind !== 'local' || (this.engine?.loaded ?? false);
  }

  /** The selected GGUF's file name (never its folder: paths stay in the core). */
  get selectedFile(): string | undefined {
    return this.choice.kind === 'local' && this.localPath
      ? path.basename(this.localPath)
      : undefined;
  }

  /** The local model whose tokenizer measures the context; undefined for any other model. */
  get tokenizerModel(): string | undefined {
    return this.choice.kind === 'local' ? this.localPath : undefined;
  }

  /** Set when the local engine decodes native tool calls: schemas narrowed to its grammar. */
  get grammar(): GrammarBounds | undefined {
    return this.choice.kind === 'local' && this.choice.toolFormat !== 'text'
      ? { maxString: this.deps.local.maxArgLength }
      : undefined;
  }

  label(): string {
    const choice = this.choice;
    switch (choice.kind) {
      case 'local':
        return this.selectedFile ? `local/${this.selectedFile}` : 'local (no model installed)';
      case 'server':
        return `${choice.protocol}/${choice.model}`;
      case 'provider':
        return choice.name;
      case 'fixed':
        return choice.label;
    }
  }

  /** Runs `listener` after each switch; returns the unsubscribe function. */
  onSwitch(listener: () => void | Promise<void>): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Switches to another model. The new access is built (and a manifest provider checked)
   * before anything is released, so a bad choice leaves the current one in force.
   */
  async select(choice: ModelChoice): Promise<void> {
    const next = this.build(choice);
    await this.release();
    this.choice = choice;
    this.current = next;
    this.localPath = undefined;
    await this.resolveLocalPath();
    for (const listener of this.listeners) await listener();
  }

  /** Loads the local engine now (a no-op for any other model); its facts for a banner. */
  async load(): Promise<LoadedModelInfo | undefined> {
    if (this.choice.kind !== 'local') return undefined;
    return (await this.open()).load();
  }

  /** Unloads the local engine; the next model call loads it again. */
  async unload(): Promise<void> {
    const engine = this.engine;
    this.engine = undefined;
    this.opening = undefined;
    await engine?.dispose();
  }

  async dispose(): Promise<void> {
    await this.release();
  }

  private async release(): Promise<void> {
    await this.unload();
    if (this.choice.kind === 'fixed') await this.choice.dispose?.();
  }

  /** The default local model, found on disk; an explicit path is checked when it opens. */
  private async resolveLocalPath(): Promise<void> {
    if (this.choice.kind !== 'local') return;
    if (this.choice.modelPath) {
      this.localPath = this.choice.modelPath;
      return;
    }
    const found = await resolveChatModel(this.deps.catalog, this.deps.locations, {
      env: this.deps.env,
      onSkip: this.deps.onSkip,
    }).catch(() => undefined);
    this.localPath = found?.path;
  }

  private build(choice: ModelChoice): ModelAccess {
    const textCalls = (provider: ModelProvider, toolFormat?: string): ModelProvider =>
      toolFormat === 'text'
        ? withTextToolCalls(provider, {
            grammar: provider.protocol === 'local',
            maxString: this.deps.local.maxArgLength,
          })
        : provider;
    switch (choice.kind) {
      case 'fixed':
        return choice.access;
      case 'local':
        return {
          turn: (request) =>
            viaProvider(
              textCalls(this.localProvider(providerId('local')), choice.toolFormat),
              this.selectedFile ?? 'none',
            ).turn(request),
        };
      case 'server': {
        const provider = new HttpProvider({
          id: providerId(choice.protocol),
          protocol: choice.protocol,
          endpoint: choice.endpoint,
          secretRef: choice.apiKeyRef,
          secrets: this.deps.secrets,
          timeoutMs: choice.timeoutMs,
          idleTimeoutMs: choice.timeoutMs,
        });
        return viaProvider(textCalls(provider, choice.toolFormat), choice.model);
      }
      case 'provider': {
        const { router, models } = routerFromManifest(this.deps.claw, {
          secrets: this.deps.secrets,
          local: (id) => this.localProvider(id),
        });
        const model = models.get(choice.name);
        if (!model) {
          throw new ModelError(
            'unknown_model',
            `the manifest has no provider "${choice.name}" (it has ${[...models.keys()].join(', ')})`,
          );
        }
        return viaRouter(router, { strategy: 'fallback', model });
      }
    }
  }

  /** The in-process engine as a provider; it opens on first use (a route may never reach it). */
  private localProvider(id: ProviderId): ModelProvider {
    const open = () => this.open();
    const sampling = { temperature: this.deps.local.temperature };
    return {
      id,
      protocol: 'local',
      async *stream(model, request) {
        yield* new LocalModelProvider(await open(), { id, sampling }).stream(model, request);
      },
    };
  }

  private open(): Promise<LocalEngine> {
    this.opening ??= (async () => {
      const modelPath = this.choice.kind === 'local' ? this.choice.modelPath : undefined;
      // An explicit path that is not a file says so, in the words of `--model-path`.
      const found = modelPath
        ? await resolveChatModel(this.deps.catalog, this.deps.locations, { modelPath })
        : this.localPath
          ? { path: this.localPath }
          : undefined;
      if (!found) {
        throw new ModelError('unknown_model', noModelHelp(this.deps.catalog, this.deps.locations), {
          provider: providerId('local'),
        });
      }
      // The engine module (and node-llama-cpp behind it) loads only when a local model runs.
      const { LocalEngine } = await import('../local/engine.js');
      const engine = new LocalEngine({
        modelPath: found.path,
        runtime: { threads: this.deps.local.threads },
        contextSize: this.deps.local.contextSize,
        maxConversations: this.deps.local.maxConversations ?? 1,
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
}
