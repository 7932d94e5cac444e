/**
 * `pincer serve`: the agent for other programs. The transport flags pick the server: the Claw
 * Kernel Protocol over --stdio, --http PORT or --ws PORT (serve-ckp.ts), or with --openai the
 * local model behind an OpenAI-compatible HTTP endpoint for other apps (editors, scripts).
 */
import type { Command } from 'commander';
import { openLocalEngine } from '../../core/agent/index.js';
import { chatModelFiles, errorMessage, localSetup, modelPath } from '../../core/local/index.js';
import { findEmbeddingModel } from '../../core/memory/index.js';
import {
  DEFAULT_PORT,
  generateApiKey,
  LocalBackend,
  type RequestLogEntry,
  startOpenAiServer,
} from '../../core/openai-server/index.js';
import { type CliContext, ExitCode } from '../context.js';
import { integerIn } from '../options.js';
import type { SetExitCode } from '../program.js';
import { stopSignal } from '../stop-signal.js';
import { type CkpServeOptions, serveCkp, wantsCkp } from './serve-ckp.js';

interface ServeOptions extends Omit<CkpServeOptions, 'host'> {
  openai?: boolean;
  port: number;
  host: string;
  model?: string;
  modelPath?: string;
  embeddingModel?: string;
  apiKeyEnv?: string;
  threads?: number;
  contextSize?: number;
  slots: number;
  maxQueue: number;
}

export function registerServe(program: Command, ctx: CliContext, setExit: SetExitCode) {
  program
    .command('serve')
    .description(
      'serve the agent over the Claw Kernel Protocol (--stdio, --http PORT, --ws PORT) and A2A (--a2a PORT), or with --openai the local model as an OpenAI-compatible API',
    )
    .option('--stdio', 'CKP over stdin/stdout, one JSON-RPC message per line')
    .option('--http <port>', 'CKP over HTTP POST (bearer token)')
    .option('--ws <port>', 'CKP over WebSocket (bearer token)')
    .option('--a2a <port>', 'A2A over HTTP: AgentCard, messages, tasks, push (bearer token)')
    .option(
      '--a2a-push-hosts <hosts>',
      'A2A: internal addresses push notifications may reach (e.g. 127.0.0.1:8080)',
    )
    .option(
      '--manifest <file>',
      'CKP: the claw.yaml of the agent served (default: the one in force)',
    )
    .option('--provider <name>', 'CKP: a provider of the manifest (default: its first)')
    .option('--tools <globs>', 'CKP: tools served (default: all; the policy decides each call)')
    .option('--heartbeat <ms>', 'CKP: heartbeat interval (default: the manifest annotation, 30 s)')
    .option(
      '--token-env <NAME>',
      'CKP: variable holding the bearer token (default: a new one, printed on stderr)',
    )
    .option('--openai', 'serve the local model at /v1 (chat, completions, embeddings, responses)')
    .option('--port <port>', '--openai: port (0: a free one)', integerIn(0, 65535), DEFAULT_PORT)
    .option(
      '--host <address>',
      'address to listen on; other than loopback exposes it to the network',
      '127.0.0.1',
    )
    .option('--model <name>', 'catalog name of an installed chat model')
    .option('--model-path <file>', 'GGUF chat model (else PINCER_MODEL, bundled, data dir)')
    .option(
      '--embedding-model <file>',
      'GGUF embedding model (else PINCER_EMBEDDING_MODEL or the installed default)',
    )
    .option(
      '--api-key-env <NAME>',
      'environment variable holding the API key clients must send (default: a new key, printed once)',
    )
    .option(
      '--threads <n>',
      'CPU threads (default: physical cores, fewer on a busy machine)',
      integerIn(1, 1024),
    )
    .option(
      '--context-size <n>',
      'largest context window per conversation slot',
      integerIn(16, 16_777_216),
    )
    .option('--slots <n>', 'conversations kept in KV cache for prefix reuse', integerIn(1, 64), 2)
    .option(
      '--max-queue <n>',
      'requests that may wait per model before 429',
      integerIn(0, 100_000),
      16,
    )
    .action(async (options: ServeOptions) => {
      if (options.openai && wantsCkp(options))
        return setExit(usage(ctx, '--openai and the CKP transports are separate servers'));
      if (options.openai) return setExit(await serveOpenAi(ctx, options));
      if (wantsCkp(options)) return setExit(await serveCkp(ctx, options));
      setExit(
        usage(
          ctx,
          'choose a transport: --stdio, --http PORT or --ws PORT (CKP), --a2a PORT, or --openai',
        ),
      );
    });
}

function usage(ctx: CliContext, message: string): number {
  ctx.stderr.write(`pincer serve: ${message}\n`);
  return ExitCode.usage;
}

async function serveOpenAi(ctx: CliContext, options: ServeOptions): Promise<number> {
  const port = options.port;
  let apiKey = generateApiKey();
  let keySource = 'generated for this run (pass --api-key-env NAME for a fixed one)';
  if (options.apiKeyEnv) {
    const fromEnv = process.env[options.apiKeyEnv]?.trim();
    if (!fromEnv)
      return usage(ctx, `--api-key-env ${options.apiKeyEnv}: that variable is empty or unset`);
    apiKey = fromEnv;
    keySource = `from $${options.apiKeyEnv}`;
  }
  try {
    const chosenPath = options.model
      ? await catalogModelPath(ctx, options.model)
      : options.modelPath;
    // One more sequence than slots: raw completions keep their own KV cache.
    const engine = await openLocalEngine({
      appDir: ctx.appDir,
      dataDir: ctx.dataDir,
      env: process.env,
      modelPath: chosenPath,
      threads: options.threads,
      contextSize: options.contextSize,
      maxConversations: options.slots + 1,
      onSkip: ({ problem }) =>
        ctx.stderr.write(`pincer: skipping a model that cannot be used: ${problem}\n`),
    });
    if ('missing' in engine) {
      ctx.stderr.write(`${engine.missing}\n`);
      return ExitCode.failed;
    }
    const { catalog, locations } = await localSetup(ctx.appDir, ctx.dataDir);
    const backend = new LocalBackend({
      engine,
      // Every installed chat model is listed and loaded on demand, one in memory at a time.
      installedChatModels: () => chatModelFiles(catalog, locations),
      slots: options.slots,
      threads: options.threads,
      embeddingModelPath:
        options.embeddingModel ??
        (await findEmbeddingModel(ctx.dataDir, ctx.appDir, { env: process.env })),
    });
    const server = await startOpenAiServer({
      backend,
      host: options.host,
      port,
      apiKey,
      maxWaiting: options.maxQueue,
      onLog: (entry) => ctx.stderr.write(`${logLine(entry)}\n`),
    }).catch(async (error: unknown) => {
      await engine.dispose();
      throw error;
    });
    const models = (await backend.models()).map((m) => m.id).join(', ');
    ctx.stdout.write(
      `Pincer OpenAI-compatible endpoint: ${server.baseUrl}\n` +
        `Models: ${models}\n` +
        `API key (${keySource}): ${apiKey}\n` +
        'Ctrl+C stops it.\n',
    );
    await stopSignal();
    await server.close();
    await backend.close();
    await engine.dispose();
    return ExitCode.ok;
  } catch (error) {
    ctx.stderr.write(`pincer serve: ${errorMessage(error)}\n`);
    return ExitCode.failed;
  }
}

async function catalogModelPath(ctx: CliContext, name: string): Promise<string> {
  const { catalog, locations } = await localSetup(ctx.appDir, ctx.dataDir);
  return modelPath(catalog, locations.modelsDir, name);
}

/** Metadata only: what was asked of which model, how it ended, token counts and time. */
function logLine(entry: RequestLogEntry): string {
  const tokens =
    entry.promptTokens === undefined
      ? ''
      : ` prompt=${entry.promptTokens} cached=${entry.cachedTokens ?? 0} completion=${entry.completionTokens ?? 0}`;
  return (
    `${new Date().toISOString()} ${entry.method} ${entry.path} ${entry.status} ${entry.outcome}` +
    `${entry.model ? ` model=${entry.model}` : ''}${entry.stream ? ' stream' : ''}${tokens} ${entry.durationMs}ms`
  );
}
