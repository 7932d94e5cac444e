/**
 * What answers chat, as data: the local engine, a server speaking one of the HTTP protocols, a
 * provider of the manifest (with its fallback chain), or a fixed access (the scripted model of
 * the tests). Every surface turns its flags or its picker into one of these; the agent root
 * decides the rest (engine, tool format, grammar, tokenizer) from it.
 */

import type { HttpProtocol, ModelAccess } from '../models/index.js';

/** native: the protocol's own tool calls; text: `@ns/tool{...}` lines (the local engine under a grammar). */
export type ToolFormat = 'native' | 'text';

export type ModelChoice =
  | {
      kind: 'local';
      /** A GGUF file; else PINCER_MODEL, the bundled model, then the data dir's. */
      modelPath?: string;
      toolFormat?: ToolFormat;
    }
  | {
      kind: 'server';
      protocol: HttpProtocol;
      /** Base URL, e.g. http://127.0.0.1:11434/v1 (the protocol's default when absent). */
      endpoint?: string;
      model: string;
      /** Where the API key is found (a secret name or environment variable); never the key. */
      apiKeyRef?: string;
      timeoutMs?: number;
      toolFormat?: ToolFormat;
      /** Declared by whoever chose it (a connection's setting, `--takes-images`); default off. */
      takesImages?: boolean;
    }
  | { kind: 'provider'; name: string }
  | {
      kind: 'fixed';
      access: ModelAccess;
      /** How people see it named, e.g. "scripted". */
      label: string;
      scripted?: boolean;
      /** Its context window in tokens, where it has one to report. */
      contextWindow?: number;
      /** Whether it reads image blocks (default off). */
      takesImages?: boolean;
      dispose?: () => Promise<void>;
    };

/** The local engine's settings: they hold for every local model this agent opens. */
export interface LocalModelSettings {
  threads?: number;
  contextSize?: number;
  temperature?: number;
  /** Longest string argument the local grammar lets the model write (default: unbounded). */
  maxArgLength?: number;
  /** How many conversations keep their KV cache (default 1). */
  maxConversations?: number;
  /** Cap of the evaluated prompt prefixes kept on disk, in bytes (default 512 MiB; 0: none). */
  prefixCacheBytes?: number;
}

export type ModelKind = 'local' | 'remote' | 'scripted';

export function kindOf(choice: ModelChoice): ModelKind {
  if (choice.kind === 'local') return 'local';
  return choice.kind === 'fixed' && choice.scripted ? 'scripted' : 'remote';
}
