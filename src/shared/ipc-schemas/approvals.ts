/** What waits for the user: approvals (with their preview, risk and prediction) and servers' forms. */
import { z } from 'zod';
import { IdSchema, Iso, Json } from './common.js';
import { RiskTierSchema } from './sessions.js';

/** What the approval is really about (see the core's approval-preview.ts). */
export const ApprovalPreviewSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('command'),
    /** The command line as it runs (a shell line when `shell`). */
    command: z.string(),
    shell: z.boolean(),
    cwd: z.string(),
    /** What the sandbox lets it do, one fact per entry. */
    sandbox: z.array(z.string()),
  }),
  z.object({
    kind: z.literal('file'),
    path: z.string(),
    change: z.enum(['create', 'replace', 'edit']),
    /** Unified diff hunks against the file as it is now (or why there is none). */
    diff: z.string(),
    truncated: z.boolean(),
  }),
  z.object({ kind: z.literal('fetch'), url: z.string(), host: z.string() }),
]);
export type ApprovalPreview = z.infer<typeof ApprovalPreviewSchema>;

export const ApprovalRiskSchema = z.object({
  /** A destructive pattern: the app styles Approve as a secondary action and keys skip it. */
  destructive: z.boolean(),
  reasons: z.array(z.string()),
});
export type ApprovalRisk = z.infer<typeof ApprovalRiskSchema>;

export const PredictionSchema = z.object({
  worldModel: z.string(),
  summary: z.string(),
  risk: z.enum(['low', 'medium', 'high', 'unknown']),
  cost: z.string().optional(),
  unavailable: z.string().optional(),
});
export type PredictionView = z.infer<typeof PredictionSchema>;

export const PendingApprovalViewSchema = z.object({
  id: IdSchema,
  runId: IdSchema,
  sessionId: IdSchema,
  call: z.object({ id: z.string(), name: z.string(), input: z.record(z.string(), Json) }),
  reason: z.string(),
  rule: z.string().nullable(),
  tier: RiskTierSchema,
  sessionApprovable: z.boolean(),
  /** What "approve for session" covers (`git status …`); null: every call of the tool. */
  sessionScope: z.string().nullable(),
  expiresAt: Iso.nullable(),
  preview: ApprovalPreviewSchema.nullable(),
  risk: ApprovalRiskSchema,
  /** A declared world model's expectation of the call (CKP 0.3.0), shown beside it. */
  prediction: PredictionSchema.nullable().optional(),
});
export type PendingApprovalView = z.infer<typeof PendingApprovalViewSchema>;

/**
 * One field of a form an MCP server asks the user to fill (elicitation), as the core read it
 * from the server's restricted schema (src/main/core/policy/input-form.ts). Every text here is
 * the server's: shown as plain text, never as markup or a link.
 */
const InputFieldBase = {
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  required: z.boolean(),
  /** It reads like a password, key or other secret: typed hidden. */
  sensitive: z.boolean().optional(),
};
export const InputFieldSchema = z.discriminatedUnion('kind', [
  z.object({
    ...InputFieldBase,
    kind: z.literal('string'),
    format: z.enum(['email', 'uri', 'date', 'date-time']).optional(),
    minLength: z.number().int().optional(),
    maxLength: z.number().int().optional(),
    default: z.string().optional(),
  }),
  z.object({
    ...InputFieldBase,
    kind: z.enum(['number', 'integer']),
    minimum: z.number().optional(),
    maximum: z.number().optional(),
    default: z.number().optional(),
  }),
  z.object({ ...InputFieldBase, kind: z.literal('boolean'), default: z.boolean().optional() }),
  z.object({
    ...InputFieldBase,
    kind: z.literal('enum'),
    options: z.array(z.object({ value: z.string(), label: z.string() })),
    default: z.string().optional(),
  }),
]);
export type InputFieldView = z.infer<typeof InputFieldSchema>;

/** A server's form waiting for the user, tied to the run (and tool call) that raised it. */
export const PendingInputViewSchema = z.object({
  id: IdSchema,
  runId: IdSchema,
  sessionId: IdSchema,
  callId: z.string().nullable(),
  tool: z.string().nullable(),
  /** The MCP server that asks. */
  source: z.string(),
  message: z.string(),
  fields: z.array(InputFieldSchema),
  /** The form asks for a password, key or other secret; `warning` is shown with it. */
  sensitive: z.boolean(),
  warning: z.string().nullable(),
  expiresAt: Iso,
});
export type PendingInputView = z.infer<typeof PendingInputViewSchema>;

/** What an accepted form holds: a value per field, by name. */
export const InputContentSchema = z
  .record(z.string().max(64), z.union([z.string().max(10_000), z.number(), z.boolean()]))
  .refine((content) => Object.keys(content).length <= 20, 'at most 20 fields');
