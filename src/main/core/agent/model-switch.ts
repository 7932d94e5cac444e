/**
 * The one place a model is opened. It holds the current choice and hands the runtime an access
 * that always routes to it, so `select` takes effect on the next model call of the next run:
 * the app's model picker and `pincer chat`'s `/model` switch here without a restart. What
 * follows from the choice is decided here too: the tool format, the local grammar's bounds,
 * and which GGUF's tokenizer measures the context.
 */
import path from 'node:path';
import type { Message } from '../../../shared/messages.js';
import type { ResolvedClaw } from '../ckp/index.js';
import type { LoadedModelInfo, LocalEngine, ModelCatalog, ModelFileFacts } from '../local/index.js';
import {
  FairGate,
  inspectModelFile,
  LocalModelProvider,
  localContextWindow,
  type ModelLocations,
  noModelHelp,
  prefixCacheOption,
  resolveChatModel,
  type SkippedModel,
  type TurnSource,
} from '../local/index.js';
import type { ModelProvider, SecretLookup } from '../models/index.js';
import {
  BUILTIN_MODELS,
  HttpProvider,
  type ModelAccess,
  ModelError,
  type ModelRequest,
  type ProviderId,
  providerId,
  routerFromManifest,
  viaProvider,
  viaRouter,
  withTextToolCalls,
} from '../models/index.js';
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
  /** Where the local engine keeps evaluated prompt prefixes between launches. */
  prefixCacheDir?: string;
  /** Told about each model file the search passed over as unusable. */
  onSkip?: (skipped: SkippedModel) => void;
}

/** The loaded local engine as one source of turns sees it (see `ModelSwitch.sharedEngine`). */
export type SharedEngine = Pick<
  LocalEngine,
  'modelPath' | 'loaded' | 'load' | 'generate' | 'complete'
>;

export class ModelSwitch {
  /** Arbitrates the app's turns and the OpenAI endpoint's on the one loaded engine. */
  readonly gate = new FairGate();
  private choice: ModelChoice;
  private current: ModelAccess;
  /** The window the choice declares (catalog, manifest limit); a local one is known on load. */
  private declaredWindow: number | null;
  /** Whether the choice declares that it takes images. */
  private images: boolean;
  private loadedWindow: number | null = null;
  private engine: LocalEngine | undefined;
  private opening: Promise<LocalEngine> | undefined;
  /** The local GGUF in force (the choice's path, else the default found on disk). */
  private localPath: string | undefined;
  /** The context size chosen in the app; undefined: the launch's (`--context-size`), else automatic. */
  private contextChoice: number | undefined;
  /** Set when a context size chosen at run time waits for the loaded engine to be free. */
  private resizeWanted = false;
  /** The selected GGUF's header facts, read once per file. */
  private facts: { path: string; read: Promise<ModelFileFacts | undefined> } | undefined;
  /** Told after every switch (the root swaps the context's tokenizer). */
  private readonly listeners = new Set<() => void | Promise<void>>();
  /**
   * What the runtime calls: always the current choice. A model that takes no images gets each
   * image of the history as a line of text instead (a conversation may have started with one
   * that does), so switching models never breaks a conversation.
   */
  readonly access: ModelAccess = {
    turn: (request) => this.current.turn(this.images ? request : withoutImages(request)),
    window: async () => this.current.window?.(),
  };

  private constructor(
    private readonly deps: ModelSwitchDeps,
    first: ModelChoice,
  ) {
    this.choice = first;
    ({
      access: this.current,
      window: this.declaredWindow,
      takesImages: this.images,
    } = this.build(first));
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

  /** Whether the model in force declares that it takes images (the local engine: never). */
  get takesImages(): boolean {
    return this.images;
  }

  /** The context window of the model in force, in tokens; null while unknown. */
  get contextWindow(): number | null {
    return this.choice.kind === 'local' ? this.loadedWindow : this.declaredWindow;
  }

  /** The local engine's upper bound of context for its next load (undefined: the engine's default). */
  get localContextSize(): number | undefined {
    return this.contextChoice ?? this.deps.local.contextSize;
  }

  /**
   * Chooses the local context size (undefined: the launch's, else automatic). It applies when the
   * engine next loads; a loaded engine keeps its size until then (see `unload`).
   */
  setContextSize(size: number | undefined): void {
    this.contextChoice = size;
  }

  /**
   * Chooses the local context size while the app runs: a loaded engine takes it only by
   * reloading, which `reloadWhenFree` does once nothing uses the engine; until then it keeps
   * its size.
   */
  resize(size: number | undefined): void {
    this.setContextSize(size);
    this.resizeWanted = this.choice.kind === 'local' && this.loaded;
  }

  /** Whether a chosen context size still waits for the loaded engine to be free. */
  get resizePending(): boolean {
    return this.resizeWanted;
  }

  /**
   * Reloads the local engine with the chosen context size if one waits and `busy` says nothing
   * uses the engine (a run between two turns, a request of the Local API queued): the switch
   * sees only the turns themselves. `changed` is told after the unload and after the load.
   */
  async reloadWhenFree(busy: () => boolean, changed: () => void): Promise<void> {
    if (!this.resizeWanted || this.choice.kind !== 'local' || !this.loaded) {
      this.resizeWanted = false;
      return;
    }
    if (busy()) return;
    this.resizeWanted = false;
    await this.unload();
    changed();
    await this.load().catch(() => undefined);
    changed();
  }

  /** The selected local GGUF's header facts (trained context, KV bytes per token); else undefined. */
  async localFacts(): Promise<ModelFileFacts | undefined> {
    const file = this.choice.kind === 'local' ? this.localPath : undefined;
    if (!file) return undefined;
    if (this.facts?.path !== file) {
      this.facts = { path: file, read: inspectModelFile(file).catch(() => undefined) };
    }
    return this.facts.read;
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

  /**
   * The local engine in force, shared rather than opened twice: every turn goes through the
   * fair gate as `source`, and opens (or reopens, after an unload) the same engine the app's
   * runs use. Undefined when the choice is not a local model.
   */
  sharedEngine(source: TurnSource): SharedEngine | undefined {
    const modelPath = this.choice.kind === 'local' ? this.localPath : undefined;
    if (!modelPath) return undefined;
    return this.gatedEngine(source, modelPath);
  }

  private gatedEngine(source: TurnSource, modelPath: string): SharedEngine {
    const gate = this.gate;
    const open = () => this.open();
    const current = () => this.engine;
    return {
      modelPath,
      get loaded() {
        return current()?.loaded ?? false;
      },
      load: async () => (await open()).load(),
      generate: (id, request) =>
        gate.run(source, request.signal, async () => (await open()).generate(id, request)),
      complete: (id, request) =>
        gate.run(source, request.signal, async () => (await open()).complete(id, request)),
    };
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
    this.current = next.access;
    this.declaredWindow = next.window;
    this.images = next.takesImages;
    this.loadedWindow = null;
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

  private build(choice: ModelChoice): {
    access: ModelAccess;
    window: number | null;
    takesImages: boolean;
  } {
    const textCalls = (provider: ModelProvider, toolFormat?: string): ModelProvider =>
      toolFormat === 'text'
        ? withTextToolCalls(provider, {
            grammar: provider.protocol === 'local',
            maxString: this.deps.local.maxArgLength,
          })
        : provider;
    switch (choice.kind) {
      case 'fixed':
        return {
          access: declaredWindow(choice.access, choice.contextWindow),
          window: choice.contextWindow ?? null,
          takesImages: choice.takesImages === true,
        };
      case 'local':
        return {
          access: {
            turn: (request) =>
              viaProvider(
                textCalls(this.localProvider(providerId('local')), choice.toolFormat),
                this.selectedFile ?? 'none',
              ).turn(request),
            // The loaded context, counted in the model's own tokens and chat format.
            window: async () =>
              localContextWindow(await (await this.open()).measure(), {
                textTools: choice.toolFormat === 'text',
              }),
          },
          window: null,
          // node-llama-cpp runs here without a vision projector: the local engine reads text.
          takesImages: false,
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
        const known = BUILTIN_MODELS.find(
          (m) => m.apiModel === choice.model && m.protocol === choice.protocol,
        );
        return {
          access: declaredWindow(
            viaProvider(textCalls(provider, choice.toolFormat), choice.model),
            known?.capabilities.contextWindow,
          ),
          window: known?.capabilities.contextWindow ?? null,
          takesImages: choice.takesImages === true,
        };
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
        // The router's descriptor: the catalog's facts or the manifest's max_context_window.
        const descriptor = router.models().find((m) => m.id === model);
        return {
          access: declaredWindow(
            viaRouter(router, { strategy: 'fallback', model }),
            descriptor?.capabilities.contextWindow,
          ),
          window: descriptor?.capabilities.contextWindow ?? null,
          // The manifest's declaration (from-manifest.ts); the router also keeps a text-only
          // fallback from being handed images.
          takesImages: descriptor?.capabilities.vision ?? false,
        };
      }
    }
  }

  /** The in-process engine as a provider; it opens on first use (a route may never reach it). */
  private localProvider(id: ProviderId): ModelProvider {
    const open = () => this.open();
    const gate = this.gate;
    const sampling = { temperature: this.deps.local.temperature };
    // Native tool calls decode under the function grammar: bound a weak model's strings.
    const grammar = { maxString: this.deps.local.maxArgLength };
    return {
      id,
      protocol: 'local',
      async *stream(model, request) {
        const engine = await open();
        // The app's turns queue fairly with the endpoint's when it shares this engine.
        const turns: Pick<LocalEngine, 'generate'> = {
          generate: (conversation, generation) =>
            gate.run('app', generation.signal, () => engine.generate(conversation, generation)),
        };
        yield* new LocalModelProvider(turns, { id, sampling, grammar }).stream(model, request);
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
        contextSize: this.localContextSize,
        maxConversations: this.deps.local.maxConversations ?? 1,
        idleTimeoutMs: 0,
        prefixCache: prefixCacheOption(this.deps.prefixCacheDir, this.deps.local.prefixCacheBytes),
      });
      this.loadedWindow = (await engine.load()).contextSize;
      this.engine = engine;
      return engine;
    })().catch((error: unknown) => {
      this.opening = undefined;
      throw error;
    });
    return this.opening;
  }
}

/** The access with the window its model declares (estimated in tokens); none when unknown. */
function declaredWindow(access: ModelAccess, tokens: number | undefined): ModelAccess {
  if (access.window || !tokens) return access;
  return { ...access, window: async () => ({ tokens }) };
}

/** The line a model that takes no images reads where an image was. */
export const IMAGE_PLACEHOLDER =
  '[an image was attached here; the model in use does not take images]';

/** The request with every image block (also inside tool results) as a line of text. */
export function withoutImages(request: ModelRequest): ModelRequest {
  const hasImage = request.messages.some((m) =>
    m.content.some(
      (b) =>
        b.type === 'image' ||
        (b.type === 'tool_result' &&
          typeof b.content !== 'string' &&
          b.content.some((p) => p.type === 'image')),
    ),
  );
  if (!hasImage) return request;
  const messages: Message[] = request.messages.map((message) => ({
    ...message,
    content: message.content.map((block) => {
      if (block.type === 'image') return { type: 'text', text: IMAGE_PLACEHOLDER };
      if (block.type === 'tool_result' && typeof block.content !== 'string') {
        return {
          ...block,
          content: block.content.map((part) =>
            part.type === 'image' ? { type: 'text' as const, text: IMAGE_PLACEHOLDER } : part,
          ),
        };
      }
      return block;
    }),
  }));
  return { ...request, messages };
}
