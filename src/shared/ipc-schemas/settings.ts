/** Settings: autonomy and policies, tools per conversation, engine settings, workspace, feature status. */
import { z } from 'zod';
import { RiskTierSchema } from './sessions.js';

export const AutonomySchema = z.enum(['observer', 'supervised', 'autonomous']);
export type Autonomy = z.infer<typeof AutonomySchema>;

export const PoliciesViewSchema = z.object({
  autonomy: AutonomySchema,
  /** The manifest's own level (the UI may override it for this process). */
  manifestAutonomy: AutonomySchema,
  rules: z.array(
    z.object({
      policy: z.string(),
      id: z.string(),
      action: z.string(),
      scope: z.string(),
      reason: z.string().nullable(),
    }),
  ),
});
export type PoliciesView = z.infer<typeof PoliciesViewSchema>;

/** A tool's registry name: `fs/read`, `mcp/server/tool`. */
export const ToolNameSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[a-z0-9][a-z0-9_-]*(\/[a-z0-9][a-z0-9_-]*)*$/, 'not a tool name');

/** A tool a conversation may offer its model, and whether this conversation does. */
export const SessionToolSchema = z.object({
  name: ToolNameSchema,
  description: z.string(),
  tier: RiskTierSchema,
  /** Where it comes from: Pincer itself, the manifest, or an MCP server. */
  source: z.enum(['builtin', 'manifest', 'mcp']),
  enabled: z.boolean(),
});
export type SessionTool = z.infer<typeof SessionToolSchema>;

/** The local engine's context sizes Settings offers, in tokens (null in Settings: automatic). */
export const CONTEXT_SIZES = [2048, 4096, 8192, 16384, 32768] as const;
export const ContextSizeSchema = z.literal(CONTEXT_SIZES);

export const SettingsSchema = z.strictObject({
  theme: z.enum(['system', 'dark', 'light']),
  showReasoning: z.boolean(),
  /** Enter sends (Shift+Enter for a new line); otherwise Ctrl/Cmd+Enter sends. */
  enterSends: z.boolean(),
  /** The user's standing instructions, added to every run's system prompt. */
  systemPrompt: z.string().max(8000),
  /** Sampling temperature for the next runs; null keeps the model's default. */
  temperature: z.number().min(0).max(2).nullable(),
  /**
   * The local model's context window, bounded by what the model was trained for; null: automatic
   * (the launch's `--context-size`, else up to 8192 tokens as memory allows).
   */
  contextSize: ContextSizeSchema.nullable(),
});
export type Settings = z.infer<typeof SettingsSchema>;

/** The folder the agent's tools work in; `canOpen` where this surface can show it (the desktop). */
export const WorkspaceViewSchema = z.object({ path: z.string(), canOpen: z.boolean() });
export type WorkspaceView = z.infer<typeof WorkspaceViewSchema>;

export const FeatureStatusSchema = z.object({
  available: z.boolean(),
  /** Why not, when it is not: a sentence the surfaces show. */
  note: z.string().nullable(),
});
