/** Model providers, the connections added in the app and the named secrets (never their values). */
import { z } from 'zod';

export const ProviderViewSchema = z.object({
  name: z.string(),
  protocol: z.string(),
  model: z.string(),
  endpoint: z.string(),
  /** The secret's name (never its value), and whether the secrets chain holds it. */
  secretRef: z.string().nullable(),
  hasKey: z.boolean(),
  fallback: z.array(z.string()),
});
export type ProviderView = z.infer<typeof ProviderViewSchema>;

/** What "Add provider" offers; each is one wire protocol (OpenAI-compatible: Ollama, LM Studio). */
export const ConnectionKindSchema = z.enum(['openai', 'anthropic', 'gemini', 'openai-compatible']);
export type ConnectionKind = z.infer<typeof ConnectionKindSchema>;

/** A provider added from the app: its key is named, never shown. */
export const ConnectionViewSchema = z.object({
  name: z.string(),
  kind: ConnectionKindSchema,
  endpoint: z.string(),
  keyName: z.string().nullable(),
  models: z.array(z.string()),
  /** Its models take images (chosen when it was added). */
  takesImages: z.boolean(),
});
export type ConnectionView = z.infer<typeof ConnectionViewSchema>;

export const SecretsViewSchema = z.object({
  names: z.array(z.object({ name: z.string(), backend: z.string(), shadowed: z.boolean() })),
  backends: z.array(
    z.object({ id: z.string(), label: z.string(), writable: z.boolean(), available: z.boolean() }),
  ),
});
export type SecretsView = z.infer<typeof SecretsViewSchema>;
