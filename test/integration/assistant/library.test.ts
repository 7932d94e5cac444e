/**
 * Skills and memory added from Settings, through the IPC dispatch the UI uses: real SQLite,
 * the real skill registry and memory store. A malformed or conflicting file is refused with its
 * reason and leaves nothing behind; a note is found by a later search.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createCoreHandlers,
  dispatch,
  type IpcHandlers,
} from '../../../src/main/core/ipc/index.js';
import type { ChannelName, IpcResult, RequestOf, ResponseOf } from '../../../src/shared/ipc.js';
import { type AssistantFixture, scriptedAssistant } from '../../support/assistant-harness.js';

const SKILL = (name: string, description = 'Summarise a long text in three bullet points.') =>
  `---\nname: ${name}\ndescription: ${description}\n---\nRead the text, then write three bullets.\n`;

let fixture: AssistantFixture;
let handlers: IpcHandlers;
beforeEach(async () => {
  fixture = await scriptedAssistant({ delayMs: 1 });
  handlers = createCoreHandlers({ assistant: fixture.assistant, electronVersion: null });
});
/** A call as the UI makes it: validated against the contract, answered as a result. */
const invoke = <C extends ChannelName>(
  channel: C,
  request: RequestOf<C> | Record<string, unknown>,
) => dispatch(handlers, channel, request) as Promise<IpcResult<ResponseOf<C>>>;
afterEach(() => fixture.close());

const added = () => path.join(fixture.dataDir, 'skills', 'added');

describe('skills added in Settings', () => {
  it('registers a SKILL.md from its text, updates it in place, and turns it off and on', async () => {
    const first = await invoke('skills.add', {
      file: { name: 'SKILL.md', text: SKILL('summarise') },
    });
    expect(first).toEqual({ ok: true, value: { status: 'added', name: 'summarise' } });
    const listed = await invoke('skills.list', {});
    expect(listed.ok && listed.value.skills).toEqual([
      expect.objectContaining({ name: 'summarise', enabled: true, trust: 'unverified' }),
    ]);
    const again = await invoke('skills.add', {
      file: { name: 'SKILL.md', text: SKILL('summarise', 'Summarise in five bullets.') },
    });
    expect(again).toEqual({ ok: true, value: { status: 'updated', name: 'summarise' } });
    expect(await readdir(added())).toHaveLength(1);

    const off = await invoke('skills.setEnabled', { name: 'summarise', enabled: false });
    expect(off.ok && off.value.skills[0]).toMatchObject({ enabled: false });
    const on = await invoke('skills.setEnabled', { name: 'summarise', enabled: true });
    expect(on.ok && on.value.skills[0]).toMatchObject({ enabled: true });
  });

  it('refuses a malformed file with its reason and writes nothing', async () => {
    const refused = await invoke('skills.add', {
      file: { name: 'SKILL.md', text: 'no front matter here' },
    });
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.error.message).toMatch(/front matter/);
    const wrongKind = await invoke('skills.add', { file: { name: 'notes.txt', text: SKILL('x') } });
    expect(!wrongKind.ok && wrongKind.error.message).toMatch(/SKILL\.md .* or a CKP Skill YAML/);
    expect(existsSync(added())).toBe(false);
    const listed = await invoke('skills.list', {});
    expect(listed.ok && listed.value.skills).toEqual([]);
  });

  it('a name taken by another file is refused unless replaced; the refusal leaves the other file alone', async () => {
    const yaml = (await readFile(
      path.resolve(import.meta.dirname, '../../fixtures/ckp/appendix-a/skills/data-analysis.yaml'),
      'utf8',
    )) as string;
    expect(await invoke('skills.add', { file: { name: 'analysis.yaml', text: yaml } })).toEqual({
      ok: true,
      value: { status: 'added', name: 'data-analysis' },
    });
    const [folder] = await readdir(added());
    const files = () => readdir(path.join(added(), folder as string));
    expect(await files()).toEqual(['skill.yaml']);

    const clash = await invoke('skills.add', {
      file: { name: 'SKILL.md', text: SKILL('data-analysis') },
    });
    expect(!clash.ok && clash.error.message).toMatch(/already registered/);
    expect(await files()).toEqual(['skill.yaml']);

    const replaced = await invoke('skills.add', {
      file: { name: 'SKILL.md', text: SKILL('data-analysis') },
      replace: true,
    });
    expect(replaced).toMatchObject({ ok: true, value: { name: 'data-analysis' } });
    // The skill now lives in its SKILL.md; the YAML it replaced is gone.
    expect(await files()).toEqual(['SKILL.md']);
    const listed = await invoke('skills.list', {});
    expect(listed.ok && listed.value.skills).toHaveLength(1);
  });
});

describe('memory added in Settings', () => {
  it('remembers a note and a text file; a later search finds both', async () => {
    const note = await invoke('memory.add', {
      text: 'The cat is called Tomasz and likes herring.',
    });
    expect(note.ok && note.value.source).toMatch(/^note:/);
    const file = await invoke('memory.add', {
      text: '# Garden\n\nThe tomatoes are planted along the south fence.',
      name: 'garden.md',
    });
    expect(file).toMatchObject({ ok: true, value: { source: 'added:garden.md' } });
    const cat = await invoke('memory.search', { query: 'Tomasz herring' });
    expect(cat.ok && cat.value.hits[0]?.text).toContain('Tomasz');
    const garden = await invoke('memory.search', { query: 'tomatoes fence' });
    expect(garden.ok && garden.value.hits[0]).toMatchObject({ source: 'added:garden.md' });
  });

  it('refuses an empty note and a file name with folders before the core sees it', async () => {
    expect(await invoke('memory.add', { text: '   ' })).toMatchObject({ ok: false });
    expect(await invoke('memory.add', { text: 'x', name: '../../etc/passwd' })).toMatchObject({
      ok: false,
    });
  });
});
