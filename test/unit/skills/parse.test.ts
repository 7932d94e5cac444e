import { describe, expect, it } from 'vitest';
import { SkillError } from '../../../src/main/core/skills/errors.js';
import { parseSkill } from '../../../src/main/core/skills/parse.js';
import { keywords } from '../../../src/main/core/skills/registry.js';

const SKILL_MD = `---
name: csv-report
description: Summarise a CSV file into a short Markdown report
version: 1.2.0
tags: [data, csv]
requires:
  tools: [fs/read, fs/write]
permissions:
  network: false
  filesystem: write-workspace
---
# How
Read the CSV with fs/read, then write report.md.
`;

describe('parseSkill', () => {
  it('reads SKILL.md front matter and keeps the body as the instructions', () => {
    expect(parseSkill('/s/SKILL.md', SKILL_MD)).toEqual({
      name: 'csv-report',
      description: 'Summarise a CSV file into a short Markdown report',
      version: '1.2.0',
      tags: ['data', 'csv'],
      requiresTools: ['fs/read', 'fs/write'],
      permissions: { network: false, filesystem: 'write-workspace' },
      body: '# How\nRead the CSV with fs/read, then write report.md.',
      format: 'skill-md',
    });
  });

  it('reads CKP Skill YAML, tool references reduced to names', () => {
    const yaml = `claw: "0.2.0"
kind: Skill
metadata:
  name: deep-research
  version: 2.0.0
  labels: { domain: research }
spec:
  description: Research a topic
  tools_required: ["claw://tool/web-search@1.0.0", "file-write"]
  instruction: Search, read, write a report.
`;
    expect(parseSkill('/s/deep.yaml', yaml)).toMatchObject({
      name: 'deep-research',
      version: '2.0.0',
      tags: ['research'],
      requiresTools: ['web-search', 'file-write'],
      body: 'Search, read, write a report.',
      format: 'ckp-yaml',
    });
  });

  it.each([
    ['no front matter', '# just markdown', /no front matter/],
    ['bad YAML', '---\nname: [unclosed\n---\nbody', /not valid YAML/],
    ['missing description', '---\nname: x\n---\nbody', /description/],
    ['bad name', '---\nname: Bad Name\ndescription: d\n---\nbody', /name: lower-case/],
    ['unknown key', '---\nname: x\ndescription: d\nrun: rm -rf /\n---\nbody', /run/],
    ['empty body', '---\nname: x\ndescription: d\n---\n  \n', /no instructions/],
  ])('refuses %s with a clear error', (_, text, message) => {
    let error: unknown;
    try {
      parseSkill('/s/SKILL.md', text);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SkillError);
    expect((error as SkillError).code).toBe('malformed');
    expect((error as SkillError).message).toMatch(/^\/s\/SKILL\.md: /);
    expect((error as SkillError).message).toMatch(message);
  });

  it('refuses a YAML file that is not a CKP Skill', () => {
    expect(() =>
      parseSkill('/s/x.yaml', 'claw: "0.2.0"\nkind: Tool\nmetadata: {name: x}\nspec: {}\n'),
    ).toThrow(/kind/);
  });

  it('keywords drop stop words and one-letter words', () => {
    expect(keywords('How do I write a CSV report, please?')).toEqual(['write', 'csv', 'report']);
  });
});
