import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { userText } from '../../../shared/messages.js';
import { loadActiveClaw, resourcesDirOf } from '../../core/ckp/index.js';
import { LocalEngine } from '../../core/local/engine.js';
import { errorMessage } from '../../core/local/errors.js';
import { noModelHelp, resolveChatModel } from '../../core/local/model-manager.js';
import { LocalModelProvider } from '../../core/local/provider.js';
import { localSetup } from '../../core/local/setup.js';
import type { LocalMessage } from '../../core/local/types.js';
import { envLookup } from '../../core/models/credentials.js';
import { isModelError, ModelError } from '../../core/models/errors.js';
import { routerFromManifest } from '../../core/models/from-manifest.js';
import { ADAPTERS, type HttpProtocol, HttpProvider } from '../../core/models/http-provider.js';
import { type ProviderId, providerId } from '../../core/models/ids.js';
import type { ModelProvider } from '../../core/models/types.js';
import { type CliContext, ExitCode } from '../context.js';
import type { SetExitCode } from '../program.js';
import { printEvents } from './model-events.js';

interface LocalModelOptions {
  modelPath?: string;
  system?: string;
  maxTokens?: number;
  temperature?: number;
  threads?: number;
  contextSize?: number;
}

interface RunOptions extends LocalModelOptions {
  protocol: string;
  provider?: string;
  manifest?: string;
  endpoint?: string;
  model?: string;
  apiKeyEnv?: string;
  timeout: number;
  json?: boolean;
}

const PROTOCOL_NAMES: Record<string, HttpProtocol | 'local'> = {
  local: 'local',
  'openai-compatible': 'openai-compatible',
  openai: 'openai-compatible',
  responses: 'responses',
  'openai-responses': 'responses',
  anthropic: 'anthropic',
  'anthropic-native': 'anthropic',
  gemini: 'gemini',
};

const DEFAULT_SYSTEM = 'You are Pincer, a helpful assistant running locally. Answer concisely.';

function addModelOptions(command: Command): Command {
  return command
    .option('--model-path <file>', 'GGUF model to use (else PINCER_MODEL, bundled, data dir)')
    .option('--system <text>', 'system prompt')
    .option('--max-tokens <n>', 'longest reply in tokens', (v) => Number.parseInt(v, 10), 1024)
    .option('--temperature <t>', 'sampling temperature (0 = greedy)', Number.parseFloat, 0.7)
    .option('--threads <n>', 'CPU threads (default: all cores)', (v) => Number.parseInt(v, 10))
    .option('--context-size <n>', 'largest context window', (v) => Number.parseInt(v, 10));
}

/** Finds the model and opens the engine, or explains how to get a model. */
async function openEngine(
  ctx: CliContext,
  options: LocalModelOptions,
): Promise<LocalEngine | undefined> {
  const { catalog, locations } = await localSetup(ctx.appDir, ctx.dataDir);
  const found = await resolveChatModel(catalog, locations, {
    modelPath: options.modelPath,
    env: process.env,
  });
  if (!found) {
    ctx.stderr.write(`${noModelHelp(catalog, locations)}\n`);
    return undefined;
  }
  const engine = new LocalEngine({
    modelPath: found.path,
    runtime: { threads: options.threads },
    contextSize: options.contextSize,
    maxConversations: 1,
    idleTimeoutMs: 0,
  });
  await engine.load();
  return engine;
}

export function registerRunChat(program: Command, ctx: CliContext, setExit: SetExitCode) {
  addModelOptions(
    program
      .command('run')
      .description(
        'ask a model once and print the reply as it streams (the local model by default)',
      )
      .argument('<message>', 'what to ask'),
  )
    .option('--provider <name>', 'a provider of the manifest; its fallback chain is tried in order')
    .option('--manifest <file>', 'the claw.yaml to read providers from (default: the one in force)')
    .option('--protocol <name>', `local, ${Object.keys(ADAPTERS).join(', ')}`, 'local')
    .option('--endpoint <url>', 'base URL of the server, e.g. http://127.0.0.1:11434/v1')
    .option('--model <name>', 'model name the server expects')
    .option(
      '--api-key-env <NAME>',
      'environment variable holding the API key (never the key itself)',
    )
    .option(
      '--timeout <ms>',
      'deadline for the response head and for each stream pause',
      (v) => Number.parseInt(v, 10),
      60_000,
    )
    .option('--json', 'print one JSON event per line instead of text')
    .action(async (message: string, options: RunOptions) => {
      const protocol = PROTOCOL_NAMES[options.protocol];
      if (!protocol) {
        ctx.stderr.write(
          `pincer run: unknown protocol "${options.protocol}" (use ${Object.keys(PROTOCOL_NAMES).join(', ')})\n`,
        );
        return setExit(ExitCode.usage);
      }
      if (protocol !== 'local' && !options.model) {
        ctx.stderr.write(`pincer run: --model is required with --protocol ${options.protocol}\n`);
        return setExit(ExitCode.usage);
      }
      let engine: LocalEngine | undefined;
      const controller = new AbortController();
      const onSigint = () => controller.abort();
      process.once('SIGINT', onSigint);
      try {
        const request = {
          system: options.system ?? DEFAULT_SYSTEM,
          messages: [userText(message)],
          maxTokens: options.maxTokens,
          temperature: options.temperature,
          conversationId: 'run',
          signal: controller.signal,
        };
        if (options.provider) {
          const routed = await manifestRoute(ctx, options, options.provider, (opened) => {
            engine = opened;
          });
          const stream = routed.router.stream(request, {
            strategy: 'fallback',
            model: routed.model,
          });
          const outcome = await printEvents(ctx, stream, options.json === true);
          const { served, causes } = stream.report;
          if (served && served !== routed.model && !options.json) {
            ctx.stderr.write(
              `[answered by ${served}; before it: ${causes.map((c) => c.message).join('; ')}]\n`,
            );
          }
          if (options.json)
            ctx.stdout.write(
              `${JSON.stringify({ type: 'route', served, causes: causes.map((c) => c.toJSON()) })}\n`,
            );
          if (outcome.error) ctx.stderr.write(`pincer run: ${outcome.error.message}\n`);
          return setExit(
            outcome.error || outcome.stopReason === 'cancelled' ? ExitCode.failed : ExitCode.ok,
          );
        }
        let provider: ModelProvider;
        if (protocol === 'local') {
          engine = await openEngine(ctx, options);
          if (!engine) return setExit(ExitCode.failed);
          provider = new LocalModelProvider(engine);
        } else {
          provider = new HttpProvider({
            id: providerId(protocol),
            protocol,
            endpoint: options.endpoint,
            secretRef: options.apiKeyEnv,
            secrets: envLookup(process.env),
            timeoutMs: options.timeout,
            idleTimeoutMs: options.timeout,
          });
        }
        const outcome = await printEvents(
          ctx,
          provider.stream(options.model ?? 'local', request),
          options.json === true,
        );
        if (outcome.error) {
          ctx.stderr.write(`pincer run: ${outcome.error.message}\n`);
          return setExit(ExitCode.failed);
        }
        if (outcome.stopReason === 'cancelled') ctx.stderr.write('[cancelled]\n');
        setExit(outcome.stopReason === 'cancelled' ? ExitCode.failed : ExitCode.ok);
      } catch (error) {
        if (options.json && isModelError(error)) {
          ctx.stdout.write(`${JSON.stringify({ type: 'error', error: error.toJSON() })}\n`);
        }
        ctx.stderr.write(`pincer run: ${errorMessage(error)}\n`);
        setExit(ExitCode.failed);
      } finally {
        process.off('SIGINT', onSigint);
        await engine?.dispose();
      }
    });

  addModelOptions(
    program
      .command('chat')
      .description('chat with the local model in this terminal (Ctrl+C stops a reply)'),
  ).action(async (options: LocalModelOptions) => {
    let engine: LocalEngine | undefined;
    try {
      engine = await openEngine(ctx, options);
      if (!engine) return setExit(ExitCode.failed);
      await repl(ctx, engine, options);
      setExit(ExitCode.ok);
    } catch (error) {
      ctx.stderr.write(`pincer chat: ${errorMessage(error)}\n`);
      setExit(ExitCode.failed);
    } finally {
      await engine?.dispose();
    }
  });
}

/** The manifest's providers as a router, the local engine opened only if a request reaches it. */
async function manifestRoute(
  ctx: CliContext,
  options: RunOptions,
  name: string,
  onEngine: (engine: LocalEngine) => void,
) {
  const places = { dataDir: ctx.dataDir, resourcesDir: resourcesDirOf(ctx.appDir) };
  const { claw } = await loadActiveClaw(places, options.manifest);
  let opening: Promise<LocalEngine | undefined> | undefined;
  const local = (id: ProviderId): ModelProvider => ({
    id,
    protocol: 'local',
    async *stream(model, request) {
      opening ??= openEngine(ctx, options).then((engine) => {
        if (engine) onEngine(engine);
        return engine;
      });
      const engine = await opening;
      if (!engine)
        throw new ModelError('unknown_model', 'no local model is installed', { provider: id });
      yield* new LocalModelProvider(engine, { id }).stream(model, request);
    },
  });
  const { router, models } = routerFromManifest(claw, { secrets: envLookup(process.env), local });
  const model = models.get(name);
  if (!model) {
    throw new ModelError(
      'unknown_model',
      `the manifest has no provider "${name}" (it has ${[...models.keys()].join(', ')})`,
    );
  }
  return { router, model };
}

/** A readline loop; the conversation keeps one KV-cached sequence, so turns stay fast. */
async function repl(
  ctx: CliContext,
  engine: LocalEngine,
  options: LocalModelOptions,
): Promise<void> {
  const info = await engine.load();
  ctx.stderr.write(
    `Pincer chat with ${info.file.name ?? info.file.path} (${info.gpu || 'cpu'}, ${info.threads} threads, ` +
      `context ${info.contextSize}). Ctrl+C stops a reply; Ctrl+D or /exit quits.\n`,
  );
  const rl = createInterface({ input: process.stdin, output: ctx.stdout, prompt: '> ' });
  const messages: LocalMessage[] = [];
  let generation: AbortController | undefined;
  const interrupt = () => {
    if (generation) generation.abort();
    else rl.close();
  };
  // On a terminal readline turns Ctrl+C into its own event; piped, it arrives as a signal.
  rl.on('SIGINT', interrupt);
  process.on('SIGINT', interrupt);
  try {
    rl.prompt();
    for await (const line of rl) {
      const text = line.trim();
      if (text === '/exit') break;
      if (!text) {
        rl.prompt();
        continue;
      }
      messages.push({ role: 'user', text });
      generation = new AbortController();
      const result = await engine.generate('chat', {
        system: options.system ?? DEFAULT_SYSTEM,
        messages,
        maxTokens: options.maxTokens,
        sampling: { temperature: options.temperature },
        signal: generation.signal,
        onText: (delta) => ctx.stdout.write(delta),
      });
      generation = undefined;
      messages.push({ role: 'assistant', text: result.text });
      ctx.stdout.write(result.stopReason === 'cancelled' ? '\n[cancelled]\n' : '\n');
      rl.prompt();
    }
  } finally {
    process.off('SIGINT', interrupt);
    rl.close();
  }
}
