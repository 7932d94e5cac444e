/**
 * The cross-field normative rules of CKP §5 that a structural schema cannot name precisely.
 * They read the raw document (not the zod output) so they still run, and report, when some
 * other field of the same primitive is malformed: every error is collected, not the first.
 */
import type { DocPath, RuleId } from './issues.js';
import { checkJsonSchema, type SchemaVerdicts } from './json-schema-check.js';
import type { PrimitiveKind } from './schemas.js';
import { type SwarmAgentEntry, swarmTree } from './swarm-tree.js';

export type Report = (rule: RuleId, path: DocPath, message: string) => void;

type Raw = Record<string, unknown>;
const isRecord = (value: unknown): value is Raw =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const rec = (value: unknown): Raw => (isRecord(value) ? value : {});

/** Event-driven channel types and the trigger field each one requires (§5.3). */
export const TRIGGER_FIELD = {
  cron: 'schedule',
  queue: 'queue_name',
  imap: 'mailbox',
  'db-trigger': 'table',
} as const;
const TRIGGER_ONLY_FOR: Record<string, string> = {
  schedule: 'cron',
  queue_name: 'queue',
  mailbox: 'imap',
  table: 'db-trigger',
  events: 'db-trigger',
};

/** Which access-control field each mode requires; the others are forbidden for it (§5.3). */
const MODE_FIELD = {
  open: undefined,
  allowlist: 'allowed_ids',
  pairing: 'pairing',
  'role-based': 'roles',
} as const;
const MODE_FIELDS = ['allowed_ids', 'pairing', 'roles'] as const;

function identityRules(spec: Raw, at: DocPath, report: Report) {
  const { personality } = spec;
  if (typeof personality === 'string' && personality.trim() === '') {
    report(
      'identity.personality',
      [...at, 'personality'],
      'personality must be a non-empty string',
    );
  }
}

function providerRules(spec: Raw, at: DocPath, report: Report) {
  const auth = spec.auth;
  if (!isRecord(auth) || typeof auth.type !== 'string') return;
  if (auth.type !== 'none' && (typeof auth.secret_ref !== 'string' || auth.secret_ref === '')) {
    report(
      'provider.auth-secret-ref',
      [...at, 'auth'],
      `auth.secret_ref is required when auth.type is "${auth.type}" (only "none" needs no secret)`,
    );
  }
}

function channelRules(spec: Raw, at: DocPath, report: Report) {
  const access = spec.access_control;
  if (isRecord(access) && typeof access.mode === 'string' && access.mode in MODE_FIELD) {
    const mode = access.mode as keyof typeof MODE_FIELD;
    const required = MODE_FIELD[mode];
    if (required && access[required] === undefined) {
      report(
        'channel.access-control',
        [...at, 'access_control'],
        `access_control.mode "${mode}" requires access_control.${required}`,
      );
    }
    for (const field of MODE_FIELDS) {
      if (field !== required && access[field] !== undefined) {
        report(
          'channel.access-control',
          [...at, 'access_control', field],
          `access_control.${field} is not allowed with mode "${mode}"` +
            (required ? ` (use ${required})` : ''),
        );
      }
    }
  }

  const type = typeof spec.type === 'string' ? spec.type : undefined;
  pincerChannelRules(type, spec['x-pincer'], at, report);
  const trigger = spec.trigger;
  const needed =
    type && type in TRIGGER_FIELD ? TRIGGER_FIELD[type as keyof typeof TRIGGER_FIELD] : undefined;
  if (needed && (!isRecord(trigger) || trigger[needed] === undefined)) {
    report(
      'channel.trigger',
      isRecord(trigger) ? [...at, 'trigger'] : at,
      `a "${type}" channel requires trigger.${needed}`,
    );
  }
  if (isRecord(trigger)) {
    if (!needed) {
      report(
        'channel.trigger',
        [...at, 'trigger'],
        `trigger applies only to event channels (cron, queue, imap, db-trigger), not "${type ?? '?'}"`,
      );
      return;
    }
    for (const [field, owner] of Object.entries(TRIGGER_ONLY_FOR)) {
      if (trigger[field] !== undefined && owner !== type) {
        report(
          'channel.trigger',
          [...at, 'trigger', field],
          `trigger.${field} applies only to "${owner}" channels, not "${type}"`,
        );
      }
    }
  }
}

/** Which channel types each x-pincer setting applies to. */
const PINCER_FIELD_FOR: Record<string, readonly string[]> = {
  prompt: ['cron'],
  prompt_file: ['cron'],
  listen: ['webhook'],
  api_root: ['telegram'],
  servers: ['queue'],
};

function pincerChannelRules(type: string | undefined, raw: unknown, at: DocPath, report: Report) {
  const settings = rec(raw);
  const where = [...at, 'x-pincer'];
  for (const [field, types] of Object.entries(PINCER_FIELD_FOR)) {
    if (settings[field] !== undefined && !types.includes(type ?? '')) {
      report(
        'channel.pincer',
        [...where, field],
        `x-pincer.${field} applies only to ${types.join(', ')} channels`,
      );
    }
  }
  // A cron channel without a prompt is valid CKP; it is reported when the channel starts.
  if (settings.prompt !== undefined && settings.prompt_file !== undefined) {
    report(
      'channel.pincer',
      where,
      'a cron channel runs one task: give x-pincer.prompt or x-pincer.prompt_file, not both',
    );
  }
}

function toolRules(spec: Raw, at: DocPath, report: Report, verdicts?: SchemaVerdicts) {
  const mcp = spec.mcp_source;
  if (mcp === undefined) {
    const missing = ['description', 'input_schema'].filter((field) => spec[field] === undefined);
    if (missing.length > 0) {
      report(
        'tool.description-or-mcp',
        at,
        `a tool without mcp_source requires ${missing.join(' and ')}`,
      );
    }
  } else if (isRecord(mcp) && typeof mcp.uri === 'string' && mcp.uri.startsWith('mcp://')) {
    report(
      'tool.mcp-uri',
      [...at, 'mcp_source', 'uri'],
      'the mcp:// scheme is reserved; use a native MCP transport URI (stdio:///... or https://...)',
    );
  }
  if (spec.input_schema !== undefined) {
    const problem = checkJsonSchema(spec.input_schema, verdicts);
    if (problem) report('tool.input-schema', [...at, 'input_schema'], `input_schema ${problem}`);
  }
  if (spec.composite === true && spec.skill_ref === undefined) {
    report('schema.required', at, 'a composite tool requires skill_ref');
  }
}

function nonEmptyList(rule: RuleId, field: string, what: string) {
  return (spec: Raw, at: DocPath, report: Report) => {
    const list = spec[field];
    if (Array.isArray(list) && list.length === 0) {
      report(rule, [...at, field], `${field} must contain at least one ${what}`);
    }
  };
}

function telemetryRules(spec: Raw, at: DocPath, report: Report) {
  nonEmptyList('telemetry.exporters', 'exporters', 'exporter')(spec, at, report);
  const exporters = Array.isArray(spec.exporters) ? spec.exporters : [];
  exporters.forEach((raw, index) => {
    const exporter = rec(raw);
    const field =
      exporter.type === 'otlp' || exporter.type === 'webhook'
        ? 'endpoint'
        : exporter.type === 'file' || exporter.type === 'sqlite'
          ? 'path'
          : undefined;
    if (field && (typeof exporter[field] !== 'string' || exporter[field] === '')) {
      report(
        'telemetry.exporter-fields',
        [...at, 'exporters', index],
        `exporter type "${String(exporter.type)}" requires ${field}`,
      );
    }
  });
  const rate = rec(spec.sampling).rate;
  if (typeof rate === 'number' && !(rate >= 0 && rate <= 1)) {
    report(
      'telemetry.sampling',
      [...at, 'sampling', 'rate'],
      `sampling.rate must be between 0.0 and 1.0 inclusive, got ${rate}`,
    );
  }
}

/** Which topology each x-pincer setting of a swarm applies to. */
const SWARM_FIELD_FOR: Record<string, string> = {
  rounds: 'peer-to-peer',
  reports_to: 'hierarchical',
};

function swarmRules(spec: Raw, at: DocPath, report: Report) {
  const settings = rec(spec['x-pincer']);
  for (const [field, topology] of Object.entries(SWARM_FIELD_FOR)) {
    if (settings[field] !== undefined && spec.topology !== topology) {
      report(
        'swarm.pincer',
        [...at, 'x-pincer', field],
        `x-pincer.${field} applies only to ${topology} swarms`,
      );
    }
  }
  if (spec.topology !== 'hierarchical' || !Array.isArray(spec.agents)) return;
  // A malformed entry is the schema's to report; the tree is checked once the entries are sound.
  const agents = spec.agents.filter(
    (agent): agent is SwarmAgentEntry =>
      isRecord(agent) &&
      typeof agent.identity_ref === 'string' &&
      typeof agent.role === 'string' &&
      (agent.count === undefined || typeof agent.count === 'number'),
  );
  if (agents.length !== spec.agents.length) return;
  const reportsTo = Object.fromEntries(
    Object.entries(rec(settings.reports_to)).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    ),
  );
  for (const problem of swarmTree(agents, reportsTo).problems)
    report('swarm.tree', [...at, ...problem.path], problem.message);
}

const RULES_BY_KIND: Partial<
  Record<PrimitiveKind, (spec: Raw, at: DocPath, report: Report, verdicts?: SchemaVerdicts) => void>
> = {
  Identity: identityRules,
  Provider: providerRules,
  Channel: channelRules,
  Tool: toolRules,
  Memory: nonEmptyList('memory.stores', 'stores', 'store'),
  Policy: nonEmptyList('policy.rules', 'rules', 'rule'),
  Telemetry: telemetryRules,
  Swarm: swarmRules,
};

/** Runs the kind's normative rules on a raw spec found at `at` in its document. */
export function checkSpecRules(
  kind: PrimitiveKind,
  spec: unknown,
  at: DocPath,
  report: Report,
  verdicts?: SchemaVerdicts,
) {
  if (!isRecord(spec)) return;
  RULES_BY_KIND[kind]?.(spec, at, report, verdicts);
}
