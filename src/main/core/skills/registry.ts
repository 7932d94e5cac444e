/**
 * The skills registry (seed 000's SQLite + FTS5 registry) in the profile database: what each
 * skill says, where it came from, its trust level, whether it is enabled, its content hash.
 * Matching a message picks at most three enabled skills whose required tools are all allowed,
 * by keyword overlap (seed 002) fused with embedding similarity when an embedder is configured.
 */
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Embedder } from '../models/index.js';
import type { Db } from '../storage/index.js';
import { type Migration, migrate, prepared } from '../storage/index.js';
import { ConfinementError, readInside } from '../workspace-fs/index.js';
import { SkillError } from './errors.js';
import type { SkillDoc, SkillPermissions } from './parse.js';

export const TRUST_LEVELS = ['unverified', 'community', 'verified', 'official'] as const;
export type TrustLevel = (typeof TRUST_LEVELS)[number];

export interface Skill extends SkillDoc {
  source: string;
  trust: TrustLevel;
  enabled: boolean;
  contentHash: string;
  addedAt: string;
  updatedAt: string;
}

export interface SkillMatch {
  skill: Skill;
  score: number;
  /** Message words the skill shares. */
  overlap: string[];
  similarity?: number;
}

const MAX_SKILL_BYTES = 256 * 1024;
const RRF_K = 60;

const SKILL_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'skills registry with FTS5',
    up: `
      create table skills (
        id integer primary key,
        name text not null unique,
        version text not null,
        description text not null,
        tags text not null,
        requires_tools text not null,
        permissions text not null,
        body text not null,
        format text not null,
        source text not null,
        trust text not null check (trust in ('unverified', 'community', 'verified', 'official')),
        enabled integer not null default 1,
        content_hash text not null,
        embedding blob,
        embedder text,
        added_at text not null,
        updated_at text not null
      );
      create virtual table skills_fts using fts5(name, description, tags, body, tokenize = 'porter unicode61');
    `,
  },
];

interface SkillRow {
  id: number;
  name: string;
  version: string;
  description: string;
  tags: string;
  requires_tools: string;
  permissions: string;
  body: string;
  format: 'skill-md' | 'ckp-yaml';
  source: string;
  trust: TrustLevel;
  enabled: number;
  content_hash: string;
  embedding: Buffer | null;
  embedder: string | null;
  added_at: string;
  updated_at: string;
}

export class SkillRegistry {
  private constructor(
    private readonly db: Db,
    private readonly embedder: Embedder | undefined,
    private readonly now: () => Date,
  ) {}

  static open(db: Db, options: { embedder?: Embedder; now?: () => Date } = {}): SkillRegistry {
    migrate(db, 'skills', SKILL_MIGRATIONS);
    return new SkillRegistry(db, options.embedder, options.now ?? (() => new Date()));
  }

  /**
   * Adds the skill in a file (SKILL.md or CKP YAML) or in a folder's SKILL.md. The same skill
   * from the same place updates in place; a different skill under a taken name is refused
   * unless `replace` is set.
   */
  async add(
    target: string,
    options: { trust?: TrustLevel; replace?: boolean } = {},
  ): Promise<{ skill: Skill; status: 'added' | 'updated' | 'unchanged' }> {
    const where = await skillFile(target);
    const file = where.file;
    const text = await readSkillText(where);
    // The parser (and yaml) loads with the first skill added, not with every start.
    const { parseSkill } = await import('./parse.js');
    const doc = parseSkill(file, text);
    const hash = createHash('sha256').update(text).digest('hex');
    const existing = this.row(doc.name);
    if (existing && existing.source !== file && !options.replace) {
      throw new SkillError(
        'duplicate',
        `a skill named "${doc.name}" is already registered from ${existing.source}; remove it first or add with --replace`,
      );
    }
    if (existing && existing.content_hash === hash && !options.trust) {
      return { skill: toSkill(existing), status: 'unchanged' };
    }
    const vector = await this.embed(doc);
    const at = this.now().toISOString();
    const trust = options.trust ?? existing?.trust ?? 'unverified';
    const values = [
      doc.version,
      doc.description,
      JSON.stringify(doc.tags),
      JSON.stringify(doc.requiresTools),
      JSON.stringify(doc.permissions),
      doc.body,
      doc.format,
      file,
      trust,
      hash,
      vector ? Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength) : null,
      vector ? this.embedder?.id : null,
    ];
    this.db.transaction(() => {
      if (existing) {
        prepared(
          this.db,
          `update skills set version = ?, description = ?, tags = ?, requires_tools = ?, permissions = ?,
             body = ?, format = ?, source = ?, trust = ?, content_hash = ?, embedding = ?, embedder = ?,
             updated_at = ? where id = ?`,
        ).run(...values, at, existing.id);
        prepared(this.db, 'delete from skills_fts where rowid = ?').run(existing.id);
      } else {
        prepared(
          this.db,
          `insert into skills (name, version, description, tags, requires_tools, permissions, body,
             format, source, trust, content_hash, embedding, embedder, added_at, updated_at)
             values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ).run(doc.name, ...values, at, at);
      }
      const id = (this.row(doc.name) as SkillRow).id;
      prepared(
        this.db,
        'insert into skills_fts (rowid, name, description, tags, body) values (?, ?, ?, ?, ?)',
      ).run(id, doc.name, doc.description, doc.tags.join(' '), doc.body);
    })();
    return { skill: this.get(doc.name) as Skill, status: existing ? 'updated' : 'added' };
  }

  get(name: string): Skill | undefined {
    const row = this.row(name);
    return row ? toSkill(row) : undefined;
  }

  list(): Skill[] {
    return (prepared(this.db, 'select * from skills order by name').all() as SkillRow[]).map(
      toSkill,
    );
  }

  setEnabled(name: string, enabled: boolean): Skill {
    this.mustExist(name);
    prepared(this.db, 'update skills set enabled = ?, updated_at = ? where name = ?').run(
      enabled ? 1 : 0,
      this.now().toISOString(),
      name,
    );
    return this.get(name) as Skill;
  }

  setTrust(name: string, trust: TrustLevel): Skill {
    this.mustExist(name);
    prepared(this.db, 'update skills set trust = ? where name = ?').run(trust, name);
    return this.get(name) as Skill;
  }

  remove(name: string): boolean {
    const row = this.row(name);
    if (!row) return false;
    this.db.transaction(() => {
      prepared(this.db, 'delete from skills_fts where rowid = ?').run(row.id);
      prepared(this.db, 'delete from skills where id = ?').run(row.id);
    })();
    return true;
  }

  /** Full-text search (BM25) over name, description, tags and instructions; enabled or not. */
  search(query: string, limit = 10): Skill[] {
    const words = keywords(query);
    if (words.length === 0) return [];
    const match = words.map((w) => `"${w}"`).join(' OR ');
    return (
      prepared(
        this.db,
        `select s.* from skills_fts f join skills s on s.id = f.rowid
           where skills_fts match ? order by bm25(skills_fts) limit ?`,
      ).all(match, limit) as SkillRow[]
    ).map(toSkill);
  }

  /**
   * The skills to offer for a message: enabled, every required tool allowed, sharing words with
   * the message or (with an embedder) close to it in meaning; best first, at most `limit`.
   */
  async match(
    message: string,
    options: { isToolAllowed: (name: string) => boolean; limit?: number; minSimilarity?: number },
  ): Promise<SkillMatch[]> {
    const limit = options.limit ?? 3;
    const offered = this.list().filter(
      (s) => s.enabled && s.requiresTools.every((tool) => options.isToolAllowed(tool)),
    );
    if (offered.length === 0) return [];
    const words = new Set(keywords(message));
    const byOverlap = offered
      .map((skill) => {
        const own = new Set(
          keywords(
            `${skill.name.replaceAll(/[-_.]/g, ' ')} ${skill.description} ${skill.tags.join(' ')}`,
          ),
        );
        return { skill, overlap: [...words].filter((w) => own.has(w)) };
      })
      .filter((m) => m.overlap.length > 0)
      .sort((a, b) => b.overlap.length - a.overlap.length);
    const similarity = await this.similarities(message, offered);
    const minSimilarity = options.minSimilarity ?? 0.5;
    const bySimilarity = offered
      .filter((s) => (similarity.get(s.name) ?? -1) >= minSimilarity)
      .sort((a, b) => (similarity.get(b.name) ?? 0) - (similarity.get(a.name) ?? 0));
    const scores = new Map<string, number>();
    const add = (name: string, rank: number) => {
      scores.set(name, (scores.get(name) ?? 0) + 1 / (RRF_K + rank + 1));
    };
    byOverlap.forEach((m, rank) => {
      add(m.skill.name, rank);
    });
    bySimilarity.forEach((s, rank) => {
      add(s.name, rank);
    });
    return offered
      .filter((s) => scores.has(s.name))
      .map((skill) => ({
        skill,
        score: scores.get(skill.name) ?? 0,
        overlap: byOverlap.find((m) => m.skill.name === skill.name)?.overlap ?? [],
        ...(similarity.has(skill.name) ? { similarity: similarity.get(skill.name) } : {}),
      }))
      .sort((a, b) => b.score - a.score || a.skill.name.localeCompare(b.skill.name))
      .slice(0, limit);
  }

  private async similarities(message: string, skills: Skill[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    const embedder = this.embedder;
    if (!embedder) return out;
    const embedded = skills.flatMap((skill) => {
      const row = this.row(skill.name);
      return row?.embedding && row.embedder === embedder.id
        ? [{ skill, embedding: row.embedding }]
        : [];
    });
    // No skill to compare with: the message is not embedded (the model may not be loaded yet).
    if (embedded.length === 0) return out;
    // Similarity is a bonus on top of keyword overlap: a message the model cannot embed (longer
    // than its window) is matched by keywords alone.
    const [query] = await embedder.embed([message.slice(0, 2000)]).catch(() => []);
    if (!query) return out;
    for (const { skill, embedding } of embedded) {
      const vector = new Float32Array(
        embedding.buffer.slice(embedding.byteOffset, embedding.byteOffset + embedding.byteLength),
      );
      out.set(skill.name, cosine(query, vector));
    }
    return out;
  }

  private async embed(doc: SkillDoc): Promise<Float32Array | undefined> {
    if (!this.embedder) return undefined;
    const [vector] = await this.embedder.embed([`${doc.name}: ${doc.description}`]);
    return vector;
  }

  private row(name: string): SkillRow | undefined {
    return prepared(this.db, 'select * from skills where name = ?').get(name) as
      | SkillRow
      | undefined;
  }

  private mustExist(name: string): void {
    if (!this.row(name)) throw new SkillError('not_found', `no skill named "${name}"`);
  }
}

/** A skill as context text: what it is for, then its instructions. */
export function renderSkill(skill: Skill): string {
  return `## Skill: ${skill.name} (v${skill.version}, ${skill.trust})\n${skill.description}\n\n${skill.body}`;
}

export function parseTrust(text: string): TrustLevel {
  if ((TRUST_LEVELS as readonly string[]).includes(text)) return text as TrustLevel;
  throw new SkillError('malformed', `"${text}" is not a trust level (${TRUST_LEVELS.join(', ')})`);
}

const STOP_WORDS = new Set(
  'a an and are as at be by can do for from how i in into is it me my of on or our please the this to use we what when with you your'.split(
    ' ',
  ),
);

/** Lower-case words of two letters or more, without common stop words. */
export function keywords(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words.filter((w) => w.length > 1 && !STOP_WORDS.has(w)))];
}

function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return -1;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

function toSkill(row: SkillRow): Skill {
  return {
    name: row.name,
    version: row.version,
    description: row.description,
    tags: JSON.parse(row.tags) as string[],
    requiresTools: JSON.parse(row.requires_tools) as string[],
    permissions: JSON.parse(row.permissions) as SkillPermissions,
    body: row.body,
    format: row.format,
    source: row.source,
    trust: row.trust,
    enabled: row.enabled === 1,
    contentHash: row.content_hash,
    addedAt: row.added_at,
    updatedAt: row.updated_at,
  };
}

/**
 * A folder (the one named, links to it followed) means its SKILL.md, read inside that folder; a
 * file is read inside its own folder. Either way through the workspace guard: a skill file that
 * is a link (or a hard link) to a file elsewhere, planted by a cloned or unpacked skill, is
 * refused rather than read.
 */
async function skillFile(target: string): Promise<{ root: string; name: string; file: string }> {
  const resolved = path.resolve(target);
  const info = await stat(resolved).catch((error: unknown) => {
    throw new SkillError('not_found', `${target} does not exist`, { cause: error });
  });
  const [root, name] = info.isDirectory()
    ? [resolved, 'SKILL.md']
    : [path.dirname(resolved), path.basename(resolved)];
  return { root, name, file: path.join(root, name) };
}

async function readSkillText(where: { root: string; name: string; file: string }): Promise<string> {
  const { bytes } = await readInside(where.root, where.name, { maxBytes: MAX_SKILL_BYTES }).catch(
    (error: unknown) => {
      if (!(error instanceof ConfinementError)) throw error;
      const code =
        error.code === 'not_found' || error.code === 'too_large'
          ? error.code
          : error.code === 'io'
            ? 'unreadable'
            : 'refused';
      throw new SkillError(code, `${where.file}: ${error.message}`, { cause: error });
    },
  );
  try {
    if (bytes.includes(0)) throw new Error('NUL byte');
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new SkillError('malformed', `${where.file} is not a UTF-8 text file`);
  }
}
