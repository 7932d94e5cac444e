/**
 * Typed models of the CKP primitives (the ten of 0.2.0, and 0.3.0's WorldModel and Memory
 * extensions) and the root Claw manifest (§5-6), as zod
 * schemas: they give the TypeScript types and the structural checks (required fields, types,
 * enumerations, no unknown fields). Rules that span fields (auth vs secret_ref, access-control
 * mode vs fields, ...) live in rules.ts so each gets its own rule id and message.
 */
import { z } from 'zod';

export const PRIMITIVE_KINDS = [
  'Identity',
  'Provider',
  'Channel',
  'Tool',
  'Skill',
  'Memory',
  'Sandbox',
  'Policy',
  'Swarm',
  'Telemetry',
  'WorldModel',
] as const;
export type PrimitiveKind = (typeof PRIMITIVE_KINDS)[number];
export const ALL_KINDS = [...PRIMITIVE_KINDS, 'Claw'] as const;

export const KEBAB_NAME = /^[a-zA-Z0-9][a-zA-Z0-9-]{0,62}$/;
const DURATION = /^[0-9]+(s|m|h|d)$/;

const duration = z.string().regex(DURATION, 'expected a duration like "30d", "24h" or "90s"');
const count = z.number().int().min(0);
const positive = z.number().int().min(1);
const unit = z.number().min(0).max(1);
const backoff = z.enum(['exponential', 'linear', 'constant']);
/** A JSON Schema document; its validity is checked with Ajv in rules.ts. */
const jsonSchemaObject = z.record(z.string(), z.unknown());

export const metadataSchema = z.strictObject({
  name: z.string(),
  version: z.string().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  /** Untrusted, informational: never read for runtime decisions (§5). */
  annotations: z.record(z.string(), z.unknown()).optional(),
});
export type Metadata = z.infer<typeof metadataSchema>;

export const identitySpec = z.strictObject({
  personality: z.string(),
  context_files: z.record(z.string(), z.string()).optional(),
  locale: z.string().optional(),
  capabilities: z.array(z.string()).optional(),
  autonomy: z.enum(['observer', 'supervised', 'autonomous']).default('supervised'),
  /** Pincer's extension: how far agents/delegate may spawn sub-agents (seed 001 §10). */
  delegation: z
    .strictObject({
      max_depth: count.default(2),
      max_children: count.default(4),
    })
    .optional(),
});

export const providerSpec = z.strictObject({
  protocol: z.enum(['openai-compatible', 'anthropic-native', 'custom']),
  endpoint: z.url(),
  model: z.string().min(1),
  auth: z.strictObject({
    type: z.enum(['bearer', 'api-key-header', 'oauth2', 'none']),
    /** The NAME of an environment variable or secret-store key, never the secret itself. */
    secret_ref: z.string().min(1).optional(),
  }),
  streaming: z.boolean().optional(),
  hints: z
    .strictObject({
      cost_priority: unit.optional(),
      speed_priority: unit.optional(),
      intelligence_priority: unit.optional(),
    })
    .optional(),
  fallback: z.array(z.strictObject({ provider_ref: z.string().min(1) })).optional(),
  limits: z
    .strictObject({
      tokens_per_day: count.optional(),
      tokens_per_request: count.optional(),
      requests_per_minute: count.optional(),
      max_context_window: count.optional(),
    })
    .optional(),
  retry: z
    .strictObject({
      max_attempts: positive.optional(),
      backoff: backoff.optional(),
      initial_delay_ms: count.optional(),
    })
    .optional(),
  capabilities: z.array(z.enum(['text', 'image', 'audio', 'video', 'realtime'])).optional(),
  transport: z.enum(['http', 'websocket', 'webrtc', 'grpc']).default('http'),
});

export const CHANNEL_TYPES = [
  'telegram',
  'discord',
  'whatsapp',
  'slack',
  'email',
  'webhook',
  'cli',
  'voice',
  'web',
  'lark',
  'matrix',
  'line',
  'wechat',
  'qq',
  'dingtalk',
  'cron',
  'queue',
  'imap',
  'db-trigger',
  'custom',
] as const;

export const channelSpec = z.strictObject({
  type: z.enum(CHANNEL_TYPES),
  transport: z.enum(['polling', 'webhook', 'websocket', 'stdio']),
  auth: z.strictObject({ secret_ref: z.string().min(1) }),
  access_control: z
    .strictObject({
      mode: z.enum(['open', 'allowlist', 'pairing', 'role-based']),
      allowed_ids: z.array(z.string()).optional(),
      pairing: z.strictObject({ code_expiry_minutes: positive, max_pending: positive }).optional(),
      roles: z
        .array(z.strictObject({ id: z.string(), role: z.enum(['admin', 'user', 'viewer']) }))
        .optional(),
    })
    .optional(),
  processing: z
    .strictObject({
      max_message_length: positive.optional(),
      rate_limit: z
        .strictObject({ messages_per_minute: positive.optional(), burst: positive.optional() })
        .optional(),
      typing_indicator: z.boolean().optional(),
      read_receipts: z.boolean().optional(),
    })
    .optional(),
  features: z
    .strictObject({
      voice: z.boolean().optional(),
      files: z.boolean().optional(),
      reactions: z.boolean().optional(),
      threads: z.boolean().optional(),
      inline_images: z.boolean().optional(),
    })
    .optional(),
  trigger: z
    .strictObject({
      schedule: z.string().min(1).optional(),
      queue_name: z.string().min(1).optional(),
      mailbox: z.string().min(1).optional(),
      table: z.string().min(1).optional(),
      events: z
        .array(z.enum(['INSERT', 'UPDATE', 'DELETE']))
        .min(1)
        .optional(),
      // §5.3: runtimes MUST default these two.
      max_parallel: positive.default(1),
      overlap_policy: z.enum(['skip', 'queue', 'allow']).default('skip'),
    })
    .optional(),
  /**
   * Pincer's own settings for a channel, outside CKP 0.2.0 (which has no field for them): the
   * task a schedule runs, where a webhook listens, which Bot API server Telegram talks to, which
   * NATS server a queue is consumed from.
   */
  'x-pincer': z
    .strictObject({
      /** cron: the task prompt each firing runs. */
      prompt: z.string().min(1).optional(),
      /** cron: a workspace file whose text is the prompt, read at each firing (a heartbeat). */
      prompt_file: z.string().min(1).optional(),
      /** webhook: host:port to listen on (default 127.0.0.1:8788). */
      listen: z.string().min(1).optional(),
      /** telegram: the Bot API root (default https://api.telegram.org). */
      api_root: z.url().optional(),
      /**
       * queue: the NATS server(s) trigger.queue_name is consumed from (default: the swarm's
       * coordination.nats.servers when it has them, else nats://127.0.0.1:4222).
       */
      servers: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
      /** Seconds a run of this channel may take before its reply says it timed out. */
      reply_timeout_seconds: positive.optional(),
    })
    .optional(),
});

export const toolSpec = z.strictObject({
  description: z.string().min(1).optional(),
  input_schema: jsonSchemaObject.optional(),
  output_schema: jsonSchemaObject.optional(),
  sandbox_ref: z.string().min(1).optional(),
  policy_ref: z.string().min(1).optional(),
  mcp_source: z
    .strictObject({ uri: z.string().min(1), tool_name: z.string().optional() })
    .optional(),
  /** MCP tool annotations: untrusted hints (policies may match on them). */
  annotations: z
    .looseObject({
      readOnlyHint: z.boolean().optional(),
      destructiveHint: z.boolean().optional(),
      idempotentHint: z.boolean().optional(),
      openWorldHint: z.boolean().optional(),
    })
    .optional(),
  timeout_ms: count.optional(),
  retry: z
    .strictObject({ max_attempts: positive.optional(), backoff: backoff.optional() })
    .optional(),
  composite: z.boolean().default(false),
  skill_ref: z.string().min(1).optional(),
});

export const skillSpec = z.strictObject({
  description: z.string().min(1),
  tools_required: z.array(z.string().min(1)).min(1),
  instruction: z.string().min(1),
  input_schema: jsonSchemaObject.optional(),
  output_schema: jsonSchemaObject.optional(),
  permissions: z
    .strictObject({
      network: z.boolean().optional(),
      filesystem: z.enum(['none', 'read-only', 'write-workspace', 'full']).optional(),
      approval_required: z.boolean().optional(),
    })
    .optional(),
  estimates: z
    .strictObject({
      avg_tokens: count.optional(),
      avg_duration_seconds: count.optional(),
      avg_tool_calls: count.optional(),
    })
    .optional(),
  /** 0.3.0: the WorldModel this skill plans with; it must resolve (§5.5). */
  world_model_ref: z.string().min(1).optional(),
});

export const memoryStore = z.strictObject({
  name: z.string().min(1),
  type: z.enum(['conversation', 'semantic', 'key-value', 'workspace', 'checkpoint']),
  backend: z
    .enum(['sqlite', 'postgresql', 'filesystem', 'sqlite-vec', 'pgvector', 'qdrant', 'custom'])
    .optional(),
  retention: z
    .strictObject({ max_age: duration.optional(), max_entries: positive.optional() })
    .optional(),
  compaction: z
    .strictObject({
      enabled: z.boolean().optional(),
      strategy: z.enum(['summarize', 'truncate', 'sliding-window']).optional(),
    })
    .optional(),
  embedding: z
    .strictObject({ provider_ref: z.string(), model: z.string(), dimensions: positive })
    .optional(),
  search: z
    .strictObject({
      strategy: z.enum(['vector-only', 'fts-only', 'hybrid']).optional(),
      fusion: z.enum(['reciprocal-rank', 'linear-combination']).optional(),
      top_k: positive.optional(),
    })
    .optional(),
  scope: z.enum(['global', 'per-identity', 'per-channel']).optional(),
  encryption: z.boolean().optional(),
  /** May hold {identity_name} / {tenant_id}; resolved by the loader. */
  path: z.string().optional(),
  isolation: z.enum(['shared', 'per-identity', 'per-channel']).optional(),
  max_size_mb: positive.optional(),
  checkpoint: z
    .strictObject({ max_snapshots: positive.optional(), ttl: duration.optional() })
    .optional(),
  // 0.3.0 (§5.6): the store's cognitive role and lifecycle, and how it forgets, ranks and
  // tracks where an entry came from.
  role: z.enum(['sensory', 'working', 'episodic', 'semantic', 'procedural']).optional(),
  lifecycle: z
    .strictObject({
      acquisition: z.enum(['event-driven', 'continuous', 'manual']).optional(),
      consolidation: z.enum(['none', 'summarize', 'merge', 'adaptive']).optional(),
      retrieval: z.enum(['exact', 'semantic', 'contextual', 'hybrid']).optional(),
    })
    .optional(),
  forgetting: z
    .strictObject({
      strategy: z.enum(['none', 'decay', 'summarize', 'adaptive']).optional(),
      signals: z.array(z.string()).optional(),
    })
    .optional(),
  salience: z
    .strictObject({ enabled: z.boolean().optional(), signals: z.array(z.string()).optional() })
    .optional(),
  confidence: z
    .strictObject({
      source_tracking: z.boolean().optional(),
      decay: z.enum(['optional', 'none', 'adaptive']).optional(),
    })
    .optional(),
});

/** The telemetry fields 0.3.0 added, by their group. */
export const TELEMETRY_FIELDS_0_3 = {
  events: ['world_model_ops', 'planning_ops'],
  metrics: ['plan_revision_count', 'prediction_error', 'retrieval_hit_rate'],
} as const;

/** The store fields 0.3.0 added: a document declaring 0.2.0 may not use them. */
export const MEMORY_STORE_FIELDS_0_3 = [
  'role',
  'lifecycle',
  'forgetting',
  'salience',
  'confidence',
] as const;

export const memorySpec = z.strictObject({ stores: z.array(memoryStore) });

const modeOf = <T extends readonly [string, ...string[]]>(values: T) => z.enum(values).optional();

export const sandboxSpec = z.strictObject({
  level: z.enum(['none', 'process', 'wasm', 'container', 'vm']),
  runtime: z
    .enum(['docker', 'apple-container', 'wasmtime', 'firecracker', 'gvisor', 'native'])
    .optional(),
  capabilities: z
    .strictObject({
      network: z
        .strictObject({
          mode: modeOf(['deny', 'allowlist', 'allow-all'] as const),
          allowed_hosts: z.array(z.string()).optional(),
          ssrf_protection: z
            .strictObject({
              enabled: z.boolean().optional(),
              block_private_ips: z.boolean().optional(),
              dns_pinning: z.boolean().optional(),
            })
            .optional(),
        })
        .optional(),
      filesystem: z
        .strictObject({
          mode: modeOf(['deny', 'read-only', 'scoped', 'full'] as const),
          mount_paths: z
            .array(z.strictObject({ path: z.string(), permissions: z.enum(['ro', 'rw']) }))
            .optional(),
          denied_paths: z.array(z.string()).optional(),
        })
        .optional(),
      secrets: z
        .strictObject({
          injection: modeOf(['host-boundary', 'environment', 'file-mount'] as const),
          encryption: z.string().optional(),
          leak_detection: z
            .strictObject({ enabled: z.boolean().optional(), patterns: count.optional() })
            .optional(),
        })
        .optional(),
      shell: z
        .strictObject({
          mode: modeOf(['deny', 'restricted', 'full'] as const),
          blocked_commands: z.array(z.string()).optional(),
          blocked_patterns: z.array(z.string()).optional(),
        })
        .optional(),
    })
    .optional(),
  resource_limits: z
    .strictObject({
      memory_mb: count.optional(),
      cpu_shares: count.optional(),
      max_processes: count.optional(),
      max_open_files: count.optional(),
      timeout_ms: count.optional(),
      max_output_bytes: count.optional(),
    })
    .optional(),
});

export const policyRule = z.strictObject({
  id: z.string().min(1),
  action: z.enum(['allow', 'deny', 'require-approval', 'audit-only']),
  scope: z.enum(['tool', 'category', 'all']),
  match: z
    .strictObject({
      annotations: z.record(z.string(), z.unknown()).optional(),
      category: z.string().optional(),
    })
    .optional(),
  reason: z.string().optional(),
  approval: z
    .strictObject({
      timeout_seconds: positive.optional(),
      default_if_timeout: z.enum(['deny', 'allow']).optional(),
    })
    .optional(),
  // CKP leaves conditions open; Pincer's own keys are typed where a wrong type would loosen
  // a rule silently (see policy/rules.ts).
  conditions: z
    .looseObject({
      path_within: z.string().optional(),
      command: z.union([z.string(), z.array(z.string())]).optional(),
      shell: z.boolean().optional(),
    })
    .optional(),
  rate_limit: z
    .strictObject({
      cost_per_day_usd: z.number().min(0).optional(),
      tokens_per_day: count.optional(),
    })
    .optional(),
});

export const policySpec = z.strictObject({
  rules: z.array(policyRule),
  prompt_injection: z
    .strictObject({
      detection: z.enum(['pattern', 'llm-based', 'hybrid', 'none']).optional(),
      pattern_engine: z.string().optional(),
      pattern_count: count.optional(),
      action: z.enum(['block-and-log', 'warn', 'log-only', 'ignore']).optional(),
    })
    .optional(),
  secret_scanning: z
    .strictObject({
      enabled: z.boolean().optional(),
      scope: z.enum(['input', 'output', 'both']).optional(),
      patterns: count.optional(),
      action: z.enum(['redact', 'block', 'warn']).optional(),
    })
    .optional(),
  input_validation: z
    .strictObject({
      max_size_bytes: count.optional(),
      null_byte_detection: z.boolean().optional(),
      whitespace_analysis: z.boolean().optional(),
      encoding: z.string().optional(),
    })
    .optional(),
  rate_limits: z
    .strictObject({
      tool_calls_per_minute: count.optional(),
      tokens_per_hour: count.optional(),
      cost_per_day_usd: z.number().min(0).optional(),
    })
    .optional(),
  audit: z
    .strictObject({
      log_inputs: z.boolean().optional(),
      log_outputs: z.boolean().optional(),
      log_approvals: z.boolean().optional(),
      retention: duration.optional(),
      destination: z.enum(['file', 'sqlite', 'webhook', 'syslog']).optional(),
    })
    .optional(),
});

export const swarmSpec = z.strictObject({
  topology: z.enum(['leader-worker', 'peer-to-peer', 'pipeline', 'broadcast', 'hierarchical']),
  agents: z
    .array(
      z.strictObject({
        identity_ref: z.string(),
        role: z.string(),
        provider_ref: z.string().optional(),
        count: positive.optional(),
      }),
    )
    .min(1),
  coordination: z.strictObject({
    message_passing: z.enum(['queue', 'shared-memory', 'event-bus', 'direct']),
    backend: z.enum(['sqlite-wal', 'redis', 'nats', 'in-process']),
    concurrency: z.strictObject({
      max_parallel: positive.optional(),
      sequential_within_agent: z.boolean().optional(),
    }),
    /** Pincer's extension: where the `nats` backend connects; secrets by name only. */
    nats: z
      .strictObject({
        servers: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
        token_ref: z.string().min(1).optional(),
        user: z.string().min(1).optional(),
        password_ref: z.string().min(1).optional(),
        tls: z
          .strictObject({
            ca_file: z.string().optional(),
            cert_file: z.string().optional(),
            key_file: z.string().optional(),
          })
          .optional(),
        ack_wait_ms: positive.optional(),
        peer_ttl_ms: positive.optional(),
      })
      .optional(),
  }),
  aggregation: z.strictObject({
    strategy: z.enum(['leader-decides', 'majority-vote', 'merge', 'chain', 'best-of-n']),
    cost_aware: z.boolean().optional(),
    timeout_ms: count.optional(),
  }),
  failure: z
    .strictObject({
      retry_per_agent: count.optional(),
      dead_letter: z
        .strictObject({ enabled: z.boolean().optional(), max_retries: count.optional() })
        .optional(),
      circuit_breaker: z
        .strictObject({
          failure_threshold: positive.optional(),
          reset_timeout_ms: count.optional(),
        })
        .optional(),
    })
    .optional(),
  resource_limits: z
    .strictObject({
      max_total_tokens: count.optional(),
      max_total_cost_usd: z.number().min(0).optional(),
      max_duration_ms: count.optional(),
    })
    .optional(),
  /** Pincer's own swarm settings, outside CKP 0.2.0 (which has no field for them). */
  'x-pincer': z
    .strictObject({
      /** peer-to-peer: how many rounds the members answer (1: independent answers only). */
      rounds: positive.max(10).optional(),
      /** hierarchical: each worker's sub-leader, by identity_ref. */
      reports_to: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
});

export const telemetrySpec = z.strictObject({
  exporters: z.array(
    z.strictObject({
      type: z.enum(['otlp', 'file', 'sqlite', 'webhook', 'console']),
      endpoint: z.string().optional(),
      path: z.string().optional(),
      auth: z.strictObject({ secret_ref: z.string().min(1).optional() }).optional(),
      batch: z
        .strictObject({
          max_size: positive.optional(),
          flush_interval_ms: z.number().int().min(100).optional(),
        })
        .optional(),
    }),
  ),
  events: z
    .strictObject({
      tool_calls: z.boolean().default(true),
      memory_ops: z.boolean().default(false),
      swarm_ops: z.boolean().default(false),
      lifecycle: z.boolean().default(true),
      errors: z.boolean().default(true),
      // 0.3.0: world-model predictions, and plans changed by a conservative fallback.
      world_model_ops: z.boolean().default(false),
      planning_ops: z.boolean().default(false),
    })
    .prefault({}),
  metrics: z
    .strictObject({
      token_usage: z.boolean().default(true),
      cost_usd: z.boolean().default(false),
      latency_histogram: z.boolean().default(true),
      // 0.3.0 (read, not yet measured by Pincer).
      plan_revision_count: z.boolean().default(false),
      prediction_error: z.boolean().default(false),
      retrieval_hit_rate: z.boolean().default(false),
    })
    .prefault({}),
  // The 0.0-1.0 range is rule telemetry.sampling (rules.ts), with its own message.
  sampling: z.strictObject({ rate: z.number().default(1) }).prefault({}),
  // CKP defaults these to false (export); Pincer strips unless the manifest writes `false` itself,
  // so they stay unset here when not declared.
  redaction: z
    .strictObject({
      strip_arguments: z.boolean().optional(),
      strip_results: z.boolean().optional(),
    })
    .prefault({}),
});

/**
 * 0.3.0's WorldModel (§5.7): a predictive planning surface consulted before acting. `backend`
 * says what predicts (a tool run as a dry run, a provider asked for a bounded prediction, or a
 * custom backend this runtime does not have); `planning.fallback` what to do with a risky one.
 */
export const worldModelSpec = z.strictObject({
  paradigm: z.enum(['implicit', 'explicit', 'simulator', 'hybrid']),
  scope: z.enum(['agent-wide', 'task-scoped']).default('agent-wide'),
  memory_ref: z.string().min(1).optional(),
  backend: z.strictObject({
    type: z.enum(['tool', 'provider', 'custom']),
    ref: z.string().min(1),
  }),
  predicts: z
    .strictObject({
      state: z.boolean().optional(),
      observation: z.boolean().optional(),
      risk: z.boolean().optional(),
      cost: z.boolean().optional(),
    })
    .optional(),
  planning: z
    .strictObject({
      horizon: z.enum(['adaptive', 'bounded', 'fixed']).optional(),
      uncertainty_mode: z.enum(['none', 'bounded', 'calibrated']).optional(),
      fallback: z.enum(['conservative', 'retry', 'escalate']).optional(),
    })
    .optional(),
  update: z
    .strictObject({
      mode: z.enum(['online', 'batch', 'hybrid']).optional(),
      evidence: z.enum(['observations', 'observations+outcomes']).optional(),
    })
    .optional(),
  constraints: z.strictObject({ policy_ref: z.string().min(1).optional() }).optional(),
});

/**
 * Names what the spec schemas accept and output: a spec parsed under one revision is cached by
 * content (spec-parses.ts), so any change to a schema below must bump it. `spec-parses.test.ts`
 * holds each revision's fingerprint and fails until it is bumped.
 */
export const SPEC_SCHEMA_REVISION = 2;

export const SPEC_SCHEMAS = {
  Identity: identitySpec,
  Provider: providerSpec,
  Channel: channelSpec,
  Tool: toolSpec,
  Skill: skillSpec,
  Memory: memorySpec,
  Sandbox: sandboxSpec,
  Policy: policySpec,
  Swarm: swarmSpec,
  Telemetry: telemetrySpec,
  WorldModel: worldModelSpec,
} as const;

export type IdentitySpec = z.output<typeof identitySpec>;
export type ProviderSpec = z.output<typeof providerSpec>;
export type ChannelSpec = z.output<typeof channelSpec>;
/** The manifest's Tool primitive (a registered tool's own declaration is tools/ToolSpec). */
export type ToolPrimitiveSpec = z.output<typeof toolSpec>;
export type SkillSpec = z.output<typeof skillSpec>;
export type MemorySpec = z.output<typeof memorySpec>;
export type MemoryStore = z.output<typeof memoryStore>;
export type SandboxSpec = z.output<typeof sandboxSpec>;
export type PolicySpec = z.output<typeof policySpec>;
export type PolicyRule = z.output<typeof policyRule>;
export type SwarmSpec = z.output<typeof swarmSpec>;
export type TelemetrySpec = z.output<typeof telemetrySpec>;
export type WorldModelSpec = z.output<typeof worldModelSpec>;

export interface SpecByKind {
  Identity: IdentitySpec;
  Provider: ProviderSpec;
  Channel: ChannelSpec;
  Tool: ToolPrimitiveSpec;
  Skill: SkillSpec;
  Memory: MemorySpec;
  Sandbox: SandboxSpec;
  Policy: PolicySpec;
  Swarm: SwarmSpec;
  Telemetry: TelemetrySpec;
  WorldModel: WorldModelSpec;
}

/** Which slot of `spec` holds which kind, and whether it takes a list. */
export const MANIFEST_SLOTS = {
  identity: { kind: 'Identity', list: false },
  providers: { kind: 'Provider', list: true },
  channels: { kind: 'Channel', list: true },
  tools: { kind: 'Tool', list: true },
  skills: { kind: 'Skill', list: true },
  memory: { kind: 'Memory', list: false },
  sandbox: { kind: 'Sandbox', list: false },
  policies: { kind: 'Policy', list: true },
  swarm: { kind: 'Swarm', list: false },
  telemetry: { kind: 'Telemetry', list: false },
  world_models: { kind: 'WorldModel', list: true },
} as const satisfies Record<string, { kind: PrimitiveKind; list: boolean }>;
export type ManifestSlot = keyof typeof MANIFEST_SLOTS;

export const clawMetadataSchema = metadataSchema.extend({ description: z.string().optional() });
