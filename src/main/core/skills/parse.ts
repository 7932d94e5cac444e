/**
 * Skill files: `SKILL.md` (YAML front matter between `---` lines, then the instructions in
 * Markdown) and CKP `kind: Skill` YAML (the spec's `instruction` is the text). Either way a
 * skill is text for the model's context: nothing in it is ever executed.
 */
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { refName, SPEC_SCHEMAS } from '../ckp/index.js';
import { SkillError } from './errors.js';

export interface SkillPermissions {
  network?: boolean;
  filesystem?: 'none' | 'read-only' | 'write-workspace' | 'full';
  approval_required?: boolean;
}

export interface SkillDoc {
  name: string;
  description: string;
  version: string;
  tags: string[];
  /** Tool names (or CKP tool references, reduced to their names) the instructions rely on. */
  requiresTools: string[];
  permissions: SkillPermissions;
  /** The instructions injected into context. */
  body: string;
  format: 'skill-md' | 'ckp-yaml';
}

const NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

const permissions = z
  .strictObject({
    network: z.boolean().optional(),
    filesystem: z.enum(['none', 'read-only', 'write-workspace', 'full']).optional(),
    approval_required: z.boolean().optional(),
  })
  .optional();

const frontMatter = z.strictObject({
  name: z.string().regex(NAME, 'lower-case letters, digits, . _ - (at most 64)'),
  description: z.string().min(1),
  version: z.string().min(1).optional(),
  tags: z.array(z.string().min(1)).optional(),
  requires: z.strictObject({ tools: z.array(z.string().min(1)).optional() }).optional(),
  permissions,
});

/** Parses a skill file's text; `file` names it in error messages. */
export function parseSkill(file: string, text: string): SkillDoc {
  if (/\.(ya?ml)$/i.test(file)) return parseCkpSkill(file, text);
  return parseSkillMarkdown(file, text);
}

export function parseSkillMarkdown(file: string, text: string): SkillDoc {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!match) {
    throw new SkillError(
      'malformed',
      `${file}: no front matter (the file must start with a --- line, YAML, then ---)`,
    );
  }
  const meta = readYaml(file, match[1] ?? '');
  const parsed = frontMatter.safeParse(meta);
  if (!parsed.success)
    throw new SkillError('malformed', `${file}: front matter: ${issues(parsed.error)}`);
  const body = (match[2] ?? '').trim();
  if (!body)
    throw new SkillError(
      'malformed',
      `${file}: the skill has no instructions after its front matter`,
    );
  const data = parsed.data;
  return {
    name: data.name,
    description: data.description.trim(),
    version: data.version ?? '0.0.0',
    tags: data.tags ?? [],
    requiresTools: data.requires?.tools ?? [],
    permissions: data.permissions ?? {},
    body,
    format: 'skill-md',
  };
}

const ckpSkill = z.object({
  claw: z.string().min(1),
  kind: z.literal('Skill'),
  metadata: z.object({
    name: z.string().regex(NAME, 'lower-case letters, digits, . _ - (at most 64)'),
    version: z.string().min(1).optional(),
    labels: z.record(z.string(), z.string()).optional(),
  }),
  spec: SPEC_SCHEMAS.Skill,
});

export function parseCkpSkill(file: string, text: string): SkillDoc {
  const parsed = ckpSkill.safeParse(readYaml(file, text));
  if (!parsed.success) throw new SkillError('malformed', `${file}: ${issues(parsed.error)}`);
  const { metadata, spec } = parsed.data;
  return {
    name: metadata.name,
    description: spec.description.trim(),
    version: metadata.version ?? '0.0.0',
    tags: Object.values(metadata.labels ?? {}),
    requiresTools: spec.tools_required.map(refName),
    permissions: spec.permissions ?? {},
    body: spec.instruction.trim(),
    format: 'ckp-yaml',
  };
}

function readYaml(file: string, text: string): unknown {
  try {
    return parseYaml(text);
  } catch (error) {
    throw new SkillError('malformed', `${file}: not valid YAML: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

function issues(error: z.ZodError): string {
  return error.issues
    .map((i) => `${i.path.length ? i.path.join('.') : '(top)'}: ${i.message}`)
    .join('; ');
}
