/**
 * What the endpoint needs from a model engine: the models it serves, chat and raw-text
 * generation (with grammar-enforced tool calls and JSON), embeddings. Plain data in and out,
 * so the HTTP layer knows nothing of node-llama-cpp.
 */
import type {
  CompleteRequest,
  GenerateRequest,
  GenerateResult,
  LocalMessage,
  LocalToolDef,
} from '../local/index.js';

export type { GenerateResult, LocalMessage, LocalToolDef };

export interface ServedModel {
  id: string;
  kind: 'chat' | 'embedding';
  /** The context window in tokens (the loaded one for a loaded chat model). */
  contextLength?: number;
  /** Vector length, for embedding models. */
  dimensions?: number;
}

/** A chat turn: tool calls and `jsonSchema` / `gbnf` replies are decoded under a grammar. */
export type ChatGeneration = GenerateRequest;

export type CompletionGeneration = CompleteRequest;

export interface Embeddings {
  vectors: Float32Array[];
  promptTokens: number;
}

export interface ModelBackend {
  /** Every model a request may name. */
  models(): Promise<ServedModel[]>;
  /** `loading` while the chat model is being read into memory (requests get 503). */
  status(): 'ready' | 'loading';
  chat(model: string, request: ChatGeneration): Promise<GenerateResult>;
  complete(model: string, request: CompletionGeneration): Promise<GenerateResult>;
  embed(model: string, texts: string[]): Promise<Embeddings>;
  close(): Promise<void>;
}
