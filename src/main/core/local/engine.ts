import {
  type ChatModelFunctions,
  type LLamaChatGenerateResponseOptions,
  LlamaChat,
  type LlamaChatResponse,
  type LlamaGrammar,
  LlamaJsonSchemaValidationError,
} from 'node-llama-cpp';
import { requireToolCall } from './chat-format.js';
import { errorMessage, LocalEngineError } from './errors.js';
import { replyGrammar } from './grammar.js';
import { toChatHistory } from './history.js';
import { type Conversation, type Loaded, type LoadedModelInfo, loadModel } from './loaded-model.js';
import {
  clearSequence,
  fill,
  keepIdle,
  MIN_KEPT_PREFIX,
  type PrefixSource,
  prefixTokens,
  warmIdle,
} from './prefix-reuse.js';
import { DEFAULT_PREFIX_CACHE_BYTES, PrefixStateStore } from './prefix-store.js';
import { contextTooSmall, type EngineMeasure, functionsOf, promptFloor } from './prompt-measure.js';
import { cancelledResult, runCompletion, usageSince } from './raw-completion.js';
import { type LocalRuntime, loadRuntime, type RuntimeOptions } from './runtime.js';
import { SCHEMA_BOUNDS, schemaBoundsProblem } from './schema-bounds.js';
import type {
  CompleteRequest,
  GenerateRequest,
  GenerateResult,
  LocalStopReason,
  LocalToolCall,
} from './types.js';

export type { LoadedModelInfo } from './loaded-model.js';
export type { EngineMeasure } from './prompt-measure.js';

export interface LocalEngineOptions {
  modelPath: string;
  runtime?: RuntimeOptions;
  /** Upper bound of the context window; the engine fits it to free memory below that. */
  contextSize?: number;
  /** How many conversations keep their KV cache at once (one context sequence each). */
  maxConversations?: number;
  /** Unload the model after this long without use; 0 keeps it loaded. Default 10 minutes. */
  idleTimeoutMs?: number;
  /** Deadline of each native load step (model, context); default NATIVE_LOAD_DEADLINE_MS. */
  loadDeadlineMs?: number;
  /**
   * Where evaluated prompt prefixes (system text and tool definitions) are kept between
   * launches, and the folder's cap in bytes (default 512 MiB). Without it they are kept in
   * memory only, for the life of the loaded model.
   */
  prefixCache?: { dir: string; maxBytes?: number };
}

/** Compiled grammars kept per engine: each distinct schema a client sends would add one. */
export const GRAMMAR_CACHE_SIZE = 32;

/** Generations tried when node-llama-cpp's own re-check refuses a grammar-made call. */
const ARGUMENT_RECHECK_ATTEMPTS = 5;

/**
 * The bundled-model engine: one GGUF model kept loaded in this process, one llama.cpp context
 * with a sequence per live conversation (so turn N evaluates only its new tokens), unloaded
 * after an idle timeout and reloaded on the next request.
 */
export class LocalEngine {
  private runtime?: Promise<LocalRuntime>;
  private loading?: Promise<Loaded>;
  private readonly conversations = new Map<string, Conversation>();
  private readonly grammars = new Map<string, Promise<LlamaGrammar>>();
  private idleTimer?: NodeJS.Timeout;
  private idleTimeoutMs: number;
  private active = 0;
  private disposed = false;
  private file: string;
  private readonly store?: PrefixStateStore;
  private lastPrefix?: PrefixSource;

  constructor(private readonly options: LocalEngineOptions) {
    this.idleTimeoutMs = options.idleTimeoutMs ?? 10 * 60_000;
    this.file = options.modelPath;
    if (options.prefixCache)
      this.store = new PrefixStateStore(
        options.prefixCache.dir,
        options.prefixCache.maxBytes ?? DEFAULT_PREFIX_CACHE_BYTES,
      );
  }

  get modelPath(): string {
    return this.file;
  }

  /**
   * Serves another GGUF from now on, keeping the runtime: the current model is unloaded once
   * its turns have ended, and the next load() or request reads the new file (checked first).
   */
  async useModel(modelPath: string): Promise<void> {
    if (modelPath === this.file) return;
    await this.unload();
    this.file = modelPath;
  }

  /** Whether the model is in memory right now. */
  get loaded(): boolean {
    return this.loading !== undefined;
  }

  setIdleTimeout(ms: number): void {
    this.idleTimeoutMs = ms;
    this.armIdleTimer();
  }

  /** Loads the model (validating the file first); a no-op when it is already loaded. */
  async load(): Promise<LoadedModelInfo> {
    return (await this.ensureLoaded()).info;
  }

  /** Loads the model if needed; counts in its tokens and chat format. */
  async measure(): Promise<EngineMeasure> {
    const loaded = await this.ensureLoaded();
    return {
      contextSize: loaded.context.contextSize,
      prefix: (system, tools) =>
        promptFloor(loaded.wrapper, system, tools.length ? functionsOf(tools) : undefined, loaded),
      text: (text) => loaded.model.tokenize(text).length,
    };
  }

  async runtimeInfo(): Promise<LocalRuntime> {
    this.runtime ??= loadRuntime(this.options.runtime);
    return this.runtime;
  }

  /** Runs one model turn of conversation `conversationId`, streaming text through onText. */
  async generate(conversationId: string, request: GenerateRequest): Promise<GenerateResult> {
    if (this.disposed) throw new LocalEngineError('disposed', 'The local engine was shut down');
    const constraints = [request.jsonSchema, request.gbnf].filter(Boolean).length;
    if (constraints > 1)
      throw new LocalEngineError('invalid_request', 'Give a JSON schema or a grammar, not both');
    if (constraints && request.tools?.length && request.toolChoice !== 'none') {
      throw new LocalEngineError(
        'invalid_request',
        'A JSON schema reply and tool calls cannot be combined in one request',
      );
    }
    // Every grammar source is bounded before anything is queued or compiled.
    const sources: Array<[string, unknown]> = [
      ['The JSON schema', request.jsonSchema],
      ...(request.toolChoice === 'none' ? [] : (request.tools ?? [])).map(
        (tool): [string, unknown] => [`Tool ${tool.name}'s parameters`, tool.parameters],
      ),
    ];
    for (const [what, schema] of sources) {
      const problem = schema === undefined ? undefined : schemaBoundsProblem(schema);
      if (problem) throw new LocalEngineError('invalid_request', `${what}: ${problem}`);
    }
    if (request.gbnf && request.gbnf.length > SCHEMA_BOUNDS.bytes)
      throw new LocalEngineError(
        'invalid_request',
        `A grammar is limited to ${SCHEMA_BOUNDS.bytes} characters`,
      );
    return this.inConversation(conversationId, (conversation, loaded) =>
      this.runTurn(conversation, loaded, request),
    );
  }

  /**
   * Continues raw text (no chat template) on conversation `conversationId`'s sequence, so a
   * prompt that shares a prefix with the previous one evaluates only what is new.
   */
  async complete(conversationId: string, request: CompleteRequest): Promise<GenerateResult> {
    if (this.disposed) throw new LocalEngineError('disposed', 'The local engine was shut down');
    return this.inConversation(conversationId, (conversation) =>
      runCompletion(conversation, request),
    );
  }

  /** Runs `work` on the conversation's sequence after its earlier turns, keeping the model loaded. */
  private async inConversation(
    conversationId: string,
    work: (conversation: Conversation, loaded: Loaded) => Promise<GenerateResult>,
  ): Promise<GenerateResult> {
    this.active++;
    clearTimeout(this.idleTimer);
    try {
      const loaded = await this.ensureLoaded();
      const runtime = await this.runtimeInfo();
      const conversation = await this.conversationFor(conversationId, loaded);
      const fresh = conversation.prefix === undefined;
      const turn = conversation.queue.then(async () => {
        runtime.pickThreads();
        conversation.busy = true;
        try {
          return await work(conversation, loaded);
        } finally {
          conversation.busy = false;
        }
      });
      // After a conversation's first turn, a free sequence gets a copy of its prefix, ready for
      // the next new conversation; its own next turn waits for the copy.
      conversation.queue = turn
        .catch(() => undefined)
        .then(() =>
          fresh && (conversation.prefix?.length ?? 0) >= MIN_KEPT_PREFIX
            ? this.schedule(loaded)
            : undefined,
        );
      return await turn;
    } finally {
      this.active--;
      this.armIdleTimer();
    }
  }

  /** Forgets a conversation and frees its sequence. */
  async closeConversation(conversationId: string): Promise<void> {
    const conversation = this.conversations.get(conversationId);
    if (!conversation) return;
    this.conversations.delete(conversationId);
    await conversation.queue;
    conversation.chat.dispose({ disposeSequence: false });
    await keepIdle(conversation);
  }

  /**
   * Evaluates (or restores from disk) the prefix that requests with this system text and these
   * tools start with, in the background, so the next new conversation starts past it. Also
   * what is warmed whenever a model loads.
   */
  async warmPrefix(
    system: string | undefined,
    tools: GenerateRequest['tools'] = [],
  ): Promise<void> {
    this.lastPrefix = { system, functions: tools.length ? functionsOf(tools) : undefined };
    if (!this.loading) return;
    const loaded = await this.loading;
    await this.schedule(loaded);
  }

  /** Runs warm() after whatever warming is in flight; new conversations wait for it. */
  private schedule(loaded: Loaded): Promise<void> {
    loaded.warming = loaded.warming.then(() =>
      warmIdle(loaded, this.lastPrefix, this.store, this.conversations),
    );
    return loaded.warming;
  }

  /** The lengths of the evaluated prefixes idle sequences hold, for tests and diagnostics. */
  async warmedPrefixes(): Promise<number[]> {
    const loaded = await this.loading?.catch(() => undefined);
    if (!loaded) return [];
    await loaded.warming;
    return loaded.idle
      .map((sequence) => sequence.contextTokens.length)
      .filter((length) => length > 0);
  }

  /** Frees the model and every conversation's KV cache; the next request loads it again. */
  async unload(): Promise<void> {
    clearTimeout(this.idleTimer);
    const loading = this.loading;
    this.loading = undefined;
    const conversations = [...this.conversations.values()];
    this.conversations.clear();
    await Promise.all(conversations.map((c) => c.queue));
    if (!loading) return;
    const loaded = await loading.catch(() => undefined);
    if (!loaded) return;
    await loaded.warming;
    for (const conversation of conversations) conversation.chat.dispose({ disposeSequence: true });
    await loaded.context.dispose();
    await loaded.model.dispose();
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    await this.unload();
    const runtime = await this.runtime?.catch(() => undefined);
    this.runtime = undefined;
    await runtime?.llama.dispose();
  }

  private armIdleTimer(): void {
    clearTimeout(this.idleTimer);
    if (this.idleTimeoutMs <= 0 || this.active > 0 || !this.loading) return;
    this.idleTimer = setTimeout(() => void this.unload(), this.idleTimeoutMs);
    // An idle timer must never keep a CLI process alive.
    this.idleTimer.unref();
  }

  private ensureLoaded(): Promise<Loaded> {
    if (!this.loading) {
      const loading = loadModel(this.file, () => this.runtimeInfo(), this.options).then(
        (loaded) => {
          // Not awaited: the load is done; a request that comes meanwhile waits for this alone.
          void this.schedule(loaded);
          return loaded;
        },
      );
      this.loading = loading;
      loading.catch(() => {
        if (this.loading === loading) this.loading = undefined;
      });
    }
    return this.loading;
  }

  private async conversationFor(id: string, loaded: Loaded): Promise<Conversation> {
    const existing = this.conversations.get(id);
    if (existing) {
      existing.lastUsed = Date.now();
      return existing;
    }
    // The prefix warmed in the background is what this conversation most likely starts with.
    await loaded.warming;
    const raced = this.conversations.get(id);
    if (raced) return raced;
    if (loaded.idle.length === 0 && loaded.context.sequencesLeft === 0) {
      // Evict the least recently used conversation; it will re-evaluate its history if it returns.
      const [oldestId] = [...this.conversations.entries()].sort(
        (a, b) => a[1].lastUsed - b[1].lastUsed,
      )[0] ?? [undefined];
      if (oldestId !== undefined) await this.closeConversation(oldestId);
      const evicting = this.conversations.get(id);
      if (evicting) return evicting;
    }
    // The most recently idled sequence: it holds the latest prefix.
    const sequence = loaded.idle.pop() ?? loaded.context.getSequence();
    const conversation: Conversation = {
      chat: new LlamaChat({ contextSequence: sequence, chatWrapper: loaded.wrapper }),
      sequence,
      lastUsed: Date.now(),
      queue: Promise.resolve(),
      loaded,
      busy: false,
    };
    this.conversations.set(id, conversation);
    return conversation;
  }

  private async runTurn(
    conversation: Conversation,
    loaded: Loaded,
    request: GenerateRequest,
  ): Promise<GenerateResult> {
    const history = toChatHistory(request.system, request.messages);
    const meterBefore = conversation.sequence.tokenMeter.getState();
    const sampling = request.sampling ?? {};
    const tools = request.toolChoice === 'none' ? [] : (request.tools ?? []);
    const functions = functionsOf(tools);
    const chat =
      request.toolChoice === 'required' && tools.length > 0
        ? new LlamaChat({
            contextSequence: conversation.sequence,
            chatWrapper: requireToolCall(conversation.chat.chatWrapper),
          })
        : conversation.chat;

    const common: LLamaChatGenerateResponseOptions = {
      onTextChunk: request.onText,
      signal: request.signal,
      stopOnAbortSignal: true,
      maxTokens: request.maxTokens,
      temperature: sampling.temperature,
      topP: sampling.topP,
      topK: sampling.topK,
      minP: sampling.minP,
      seed: sampling.seed,
      repeatPenalty:
        sampling.repeatPenalty && sampling.repeatPenalty !== 1
          ? { penalty: sampling.repeatPenalty }
          : undefined,
      customStopTriggers: request.stop?.length ? request.stop : undefined,
    };
    // Said before generating, in tokens: otherwise node-llama-cpp fails deep inside with its own
    // "context shift" error, which tells a person nothing they can act on.
    const floor = promptFloor(
      chat.chatWrapper,
      request.system,
      tools.length > 0 ? functions : undefined,
      loaded,
    );
    const contextSize = conversation.sequence.contextSize;
    if (floor >= contextSize) throw contextTooSmall(floor, contextSize, tools.length);
    let response: LlamaChatResponse<ChatModelFunctions>;
    try {
      if (!conversation.prefix) {
        // A new conversation: its fixed prefix comes from an idle sequence or disk when it can.
        const used = tools.length > 0 ? functions : undefined;
        const prefix = prefixTokens(loaded, conversation.chat.chatWrapper, request.system, used);
        conversation.prefix = prefix;
        if (prefix.length < MIN_KEPT_PREFIX) await clearSequence(conversation.sequence);
        else {
          this.lastPrefix = { system: request.system, functions: used };
          await fill(conversation.sequence, loaded, prefix, this.store, this.conversations);
        }
      }
      if (request.jsonSchema || request.gbnf) {
        // Building a grammar is the expensive step: a request cancelled while it waited, or
        // while its grammar was built, goes no further.
        if (request.signal?.aborted) return cancelledResult(conversation, meterBefore);
        const grammar = await this.grammarFor(
          loaded,
          request.gbnf ?? (request.jsonSchema as Record<string, unknown>),
        );
        if (request.signal?.aborted) return cancelledResult(conversation, meterBefore);
        response = await chat.generateResponse(history, {
          ...common,
          grammar,
        } as LLamaChatGenerateResponseOptions);
      } else if (tools.length > 0) {
        const options = {
          ...common,
          functions,
          maxParallelFunctionCalls: 1,
        } as LLamaChatGenerateResponseOptions<ChatModelFunctions>;
        // The grammar made the call, but node-llama-cpp re-checks the parsed arguments in
        // UTF-16 while its grammar counted what it decoded: a string that ends in broken UTF-8,
        // or holds characters outside the BMP, passes one and fails the other.
        for (let attempt = 1; ; attempt++) {
          try {
            // A seeded request would sample the same call again: move the seed along.
            const seed = sampling.seed === undefined ? undefined : sampling.seed + attempt - 1;
            response = await chat.generateResponse(history, { ...options, seed });
            // Bytes that are not UTF-8 (the function grammar admits them) decode to U+FFFD:
            // such a call is sampled again while attempts are left, then judged as made.
            if (!brokenText(response.functionCalls) || attempt >= ARGUMENT_RECHECK_ATTEMPTS) break;
          } catch (error) {
            const call = grammarMadeCall(functions, error);
            // A caller that checks every call against the tool's real schema takes it as made.
            if (call && request.argumentsCheckedBy === 'caller')
              return {
                text: '',
                toolCalls: [{ id: `call_${Date.now().toString(36)}_0`, ...call }],
                stopReason: 'tool_calls',
                usage: usageSince(conversation, meterBefore),
              };
            if (!call || attempt >= ARGUMENT_RECHECK_ATTEMPTS || request.signal?.aborted)
              throw error;
          }
        }
      } else {
        response = await chat.generateResponse(history, common);
      }
    } catch (error) {
      if (request.signal?.aborted) return cancelledResult(conversation, meterBefore);
      if (error instanceof LocalEngineError) throw error;
      // The history (not the instructions) outgrew the context and could not be shifted.
      if (/context shift|context size is too small|too long/i.test(errorMessage(error))) {
        throw contextTooSmall(floor, contextSize, tools.length, error);
      }
      throw new LocalEngineError(
        'generation_failed',
        `Local generation failed: ${errorMessage(error)}`,
        {
          cause: error,
        },
      );
    } finally {
      if (chat !== conversation.chat) chat.dispose({ disposeSequence: false });
    }

    const toolCalls: LocalToolCall[] = (response.functionCalls ?? []).map((call, index) => ({
      id: `call_${Date.now().toString(36)}_${index}`,
      name: call.functionName,
      arguments: call.params ?? {},
    }));
    const meta = response.metadata;
    const stopReason: LocalStopReason =
      toolCalls.length > 0
        ? 'tool_calls'
        : meta.stopReason === 'abort'
          ? 'cancelled'
          : meta.stopReason === 'maxTokens'
            ? 'max_tokens'
            : meta.stopReason === 'customStopTrigger'
              ? 'stop_sequence'
              : 'end';
    return {
      text: response.response,
      toolCalls,
      stopReason,
      stopSequence:
        meta.stopReason === 'customStopTrigger'
          ? meta.customStopTrigger.filter((part) => typeof part === 'string').join('')
          : undefined,
      usage: usageSince(conversation, meterBefore),
    };
  }

  /** How many compiled grammars the engine keeps (at most GRAMMAR_CACHE_SIZE). */
  get cachedGrammars(): number {
    return this.grammars.size;
  }

  /** A JSON schema's grammar, or a GBNF text's; the most recently used ones are kept. */
  private grammarFor(
    loaded: Loaded,
    source: Record<string, unknown> | string,
  ): Promise<LlamaGrammar> {
    const key = typeof source === 'string' ? source : JSON.stringify(source);
    let grammar = this.grammars.get(key);
    if (grammar) {
      // Most recently used goes last: the Map's order is the eviction order.
      this.grammars.delete(key);
      this.grammars.set(key, grammar);
    } else {
      for (const oldest of this.grammars.keys()) {
        if (this.grammars.size < GRAMMAR_CACHE_SIZE) break;
        this.grammars.delete(oldest);
      }
      const llama = loaded.model.llama;
      // A schema decodes under the one reply grammar (grammar.ts), whoever asks.
      grammar = Promise.resolve(source)
        .then((from) => (typeof from === 'string' ? from : replyGrammar(from).gbnf))
        .then((gbnf) => llama.createGrammar({ grammar: gbnf }));
      grammar.catch(() => this.grammars.delete(key));
      this.grammars.set(key, grammar);
    }
    return grammar.catch((error: unknown) => {
      if (error instanceof LocalEngineError) throw error;
      throw new LocalEngineError(
        'invalid_request',
        `This JSON schema cannot be turned into a grammar: ${errorMessage(error)}`,
        { cause: error },
      );
    });
  }
}

/** Whether generated calls hold U+FFFD, which is what broken UTF-8 decodes to. */
function brokenText(calls: LlamaChatResponse<ChatModelFunctions>['functionCalls']): boolean {
  return (calls ?? []).some((call) => JSON.stringify(call.params ?? null).includes('\uFFFD'));
}

/** The call node-llama-cpp's re-check refused, by the function whose parameters it checked. */
function grammarMadeCall(
  functions: ChatModelFunctions,
  error: unknown,
): { name: string; arguments: Record<string, unknown> } | undefined {
  if (!(error instanceof LlamaJsonSchemaValidationError)) return undefined;
  const name = Object.keys(functions).find((key) => functions[key]?.params === error.schema);
  const params: unknown = error.object;
  if (name === undefined || typeof params !== 'object' || params === null || Array.isArray(params))
    return undefined;
  return { name, arguments: params as Record<string, unknown> };
}
