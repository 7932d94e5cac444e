/**
 * What the user adds to the agent from Settings: skills (a SKILL.md or CKP Skill YAML chosen in
 * the file picker), notes and text files to remember. The renderer sends the file's text, never
 * a path: a skill is checked in memory first, then kept under `<data dir>/skills/added/` (the
 * registry reads skills from files), so a malformed one writes nothing; a text file to remember
 * is stored whole as a note, named after the file.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { SessionMemory } from '../memory/index.js';
import { InvalidRequest } from './types.js';

export interface AddedSkill {
  status: 'added' | 'updated' | 'unchanged';
  name: string;
}

export interface Remembered {
  source: string;
  chunks: number;
}

export class UserLibrary {
  constructor(
    private readonly dataDir: string,
    private readonly memory: Pick<SessionMemory, 'skills' | 'store'>,
  ) {}

  async addSkill(fileName: string, text: string, replace = false): Promise<AddedSkill> {
    const yaml = /\.ya?ml$/i.test(fileName);
    if (!yaml && !/\.md$/i.test(fileName))
      throw new InvalidRequest('a skill is a SKILL.md (Markdown) or a CKP Skill YAML file');
    // Parsed before anything is written: a malformed file is refused with its reason.
    const { parseSkill } = await import('../skills/parse.js');
    const doc = parseSkill(fileName, text);
    // One folder per skill name (hashed: the name is the file's, not ours to put in a path).
    const id = createHash('sha256').update(doc.name).digest('hex').slice(0, 16);
    const folder = path.join(this.dataDir, 'skills', 'added', id);
    const target = path.join(folder, yaml ? 'skill.yaml' : 'SKILL.md');
    const stale = path.join(folder, yaml ? 'SKILL.md' : 'skill.yaml');
    await mkdir(folder, { recursive: true, mode: 0o700 });
    const previous = await readIfAny(target);
    await writeFile(target, text, { mode: 0o600 });
    try {
      const { skill, status } = await this.memory.skills.add(target, { replace });
      // Replaced in the other format: the file it came from is no longer the skill.
      await rm(stale, { force: true });
      return { status, name: skill.name };
    } catch (error) {
      // Refused (a name taken by another file): the file on disk goes back to what it was.
      if (previous === undefined) await rm(target, { force: true });
      else await writeFile(target, previous, { mode: 0o600 });
      await rmdir(folder).catch(() => undefined);
      throw error;
    }
  }

  setSkillEnabled(name: string, enabled: boolean): void {
    this.memory.skills.setEnabled(name, enabled);
  }

  /** A note typed in Settings, or a text file's content stored whole under the file's name. */
  async remember(text: string, fileName?: string): Promise<Remembered> {
    const outcome = await this.memory.store.addNote(
      text,
      fileName ? { source: `added:${fileName}` } : {},
    );
    return { source: outcome.source, chunks: outcome.chunks };
  }
}

function readIfAny(file: string): Promise<string | undefined> {
  return readFile(file, 'utf8').catch(() => undefined);
}
