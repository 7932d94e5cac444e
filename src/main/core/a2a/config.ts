/**
 * The remote A2A agents a person declared: `<data dir>/agents.json` (CKP 0.3.0 declares no
 * remote agents in the manifest, so they are the user's, like `mcp.json`). Each entry is what
 * the person saw and agreed to when adding it (`pincer agents add URL`): the URL, the card's
 * name, description and skills as fetched then, and an optional bearer token read from the
 * secrets store (`secret:NAME`), never written here.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { type ErrorCategory, PincerError } from '../errors.js';
import { writeFileAtomic } from '../secrets/index.js';

const AGENT_NAME = /^[a-z0-9][a-z0-9_-]{0,47}$/;

const remoteAgent = z.looseObject({
  url: z.url({ protocol: /^https?$/ }),
  /** The card as the person saw it when they agreed: what the model is told of the agent. */
  card: z.looseObject({
    name: z.string(),
    description: z.string().default(''),
    version: z.string().default(''),
    skills: z
      .array(z.looseObject({ id: z.string(), name: z.string(), description: z.string() }))
      .default([]),
  }),
  /** `secret:NAME`: the bearer token sent with each call, from the secrets store. */
  token: z.string().startsWith('secret:').optional(),
  disabled: z.boolean().optional(),
  added_at: z.string().optional(),
});
export type RemoteAgentEntry = z.output<typeof remoteAgent>;

const agentsFile = z.looseObject({ agents: z.record(z.string(), remoteAgent).default({}) });

const CATEGORY = {
  bad_file: 'invalid_request',
  bad_name: 'invalid_request',
  exists: 'conflict',
  not_found: 'not_found',
} as const satisfies Record<string, ErrorCategory>;

export class RemoteAgentConfigError extends PincerError {
  override readonly name = 'RemoteAgentConfigError';
  constructor(
    readonly code: keyof typeof CATEGORY,
    message: string,
  ) {
    super(CATEGORY[code], message);
  }
}

export function remoteAgentsPath(dataDir: string): string {
  return path.join(dataDir, 'agents.json');
}

/** A tool-name-safe name for an agent: its card's name, lower-cased, with `-` for the rest. */
export function remoteAgentName(cardName: string): string {
  const name = cardName
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[-_]+|-+$/g, '')
    .slice(0, 48);
  return name || 'agent';
}

export function checkAgentName(name: string): void {
  if (!AGENT_NAME.test(name))
    throw new RemoteAgentConfigError(
      'bad_name',
      `"${name}" is not an agent name (a-z, 0-9, _ and -, at most 48)`,
    );
}

export async function readRemoteAgents(dataDir: string): Promise<Record<string, RemoteAgentEntry>> {
  const file = remoteAgentsPath(dataDir);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new RemoteAgentConfigError('bad_file', `${file}: ${(error as Error).message}`);
  }
  const parsed = agentsFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RemoteAgentConfigError(
      'bad_file',
      `${file}: ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'invalid'}`.trim(),
    );
  }
  for (const name of Object.keys(parsed.data.agents)) checkAgentName(name);
  return parsed.data.agents;
}

async function write(dataDir: string, agents: Record<string, RemoteAgentEntry>): Promise<void> {
  await writeFileAtomic(
    remoteAgentsPath(dataDir),
    Buffer.from(`${JSON.stringify({ agents }, null, 2)}\n`),
  );
}

export async function addRemoteAgent(
  dataDir: string,
  name: string,
  entry: RemoteAgentEntry,
  options: { replace?: boolean } = {},
): Promise<void> {
  checkAgentName(name);
  const agents = await readRemoteAgents(dataDir);
  if (agents[name] && !options.replace)
    throw new RemoteAgentConfigError('exists', `an agent named "${name}" exists; remove it first`);
  agents[name] = remoteAgent.parse(entry);
  await write(dataDir, agents);
}

export async function removeRemoteAgent(dataDir: string, name: string): Promise<void> {
  const agents = await readRemoteAgents(dataDir);
  if (!agents[name]) throw new RemoteAgentConfigError('not_found', `no agent named "${name}"`);
  delete agents[name];
  await write(dataDir, agents);
}
