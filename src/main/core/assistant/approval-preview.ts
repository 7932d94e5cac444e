/**
 * What an approval is really about, shown before a person answers: a command as the command
 * line it is, with its folder and what the sandbox lets it do; a file write or edit as a diff
 * against the file as it is now, with its full path; a fetch with its host. Risky patterns are
 * named (recursive deletes, disk tools, force pushes, writes outside the workspace, a host not
 * fetched before, a program the command would run besides its own), and the app styles their Approve as a secondary action.
 *
 * The current file is read through the same real-path guard as the file tools (a link planted
 * in the workspace is refused, never followed), bounded in size.
 */
import path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import type { ApprovalPreview, ApprovalRisk } from '../../../shared/ipc-schemas.js';
import { toolDisplayName } from '../../../shared/messages.js';
import { destructiveReasons, runsReasons } from '../policy/index.js';
import type { SandboxSettings } from '../sandbox/index.js';
import { readTextInside } from '../workspace-fs/index.js';

/** Larger files are summarised rather than diffed. */
const MAX_DIFF_SOURCE_BYTES = 512 * 1024;
/** Lines of diff shown; the rest is counted. */
const MAX_DIFF_LINES = 400;

export interface PreviewContext {
  workspace: string;
  sandbox: SandboxSettings;
  /** Hosts fetched with approval before in this process: a new one is named as such. */
  knownHosts: ReadonlySet<string>;
  /** A path as people read it (home as ~). */
  showPath(text: string): string;
}

export async function approvalPreview(
  call: { name: string; input: Record<string, unknown> },
  context: PreviewContext,
): Promise<{ preview: ApprovalPreview | null; risk: ApprovalRisk }> {
  const name = toolDisplayName(call.name);
  const input = call.input;
  if (name === 'sys/exec' && typeof input.command === 'string') {
    return commandPreview(input, context);
  }
  if ((name === 'fs/write' || name === 'fs/edit') && typeof input.path === 'string') {
    return filePreview(name, input, context);
  }
  if (name === 'net/fetch' && typeof input.url === 'string') {
    let host = '';
    try {
      host = new URL(input.url).host;
    } catch {
      // The tool's own validation says what is wrong with the URL.
    }
    const known = context.knownHosts.has(host);
    return {
      preview: { kind: 'fetch', url: input.url, host },
      risk: {
        destructive: !known,
        reasons: known ? [] : [`reaches a host not fetched before: ${host || input.url}`],
      },
    };
  }
  return { preview: null, risk: { destructive: false, reasons: [] } };
}

function commandPreview(input: Record<string, unknown>, context: PreviewContext) {
  const shell = input.shell === true;
  const args = Array.isArray(input.args) ? input.args.map(String) : [];
  const line = shell
    ? String(input.command)
    : [String(input.command), ...args].map(shellQuote).join(' ');
  const cwd = path.resolve(context.workspace, typeof input.cwd === 'string' ? input.cwd : '.');
  // What the program would run besides itself (`git -c alias.x=!cmd`, `sed 1e…`).
  const reasons = [...destructiveReasons(line), ...runsReasons(input)];
  if (!inside(context.workspace, cwd)) reasons.push('runs outside the workspace');
  return {
    preview: {
      kind: 'command' as const,
      command: line,
      shell,
      cwd: context.showPath(cwd),
      sandbox: sandboxSummary(context),
    },
    risk: { destructive: reasons.length > 0, reasons },
  };
}

async function filePreview(
  name: 'fs/write' | 'fs/edit',
  input: Record<string, unknown>,
  context: PreviewContext,
) {
  const relative = String(input.path);
  const full = path.resolve(context.workspace, relative);
  const reasons: string[] = [];
  if (!inside(context.workspace, full)) reasons.push('writes outside the workspace');
  const current = inside(context.workspace, full)
    ? await readTextInside(context.workspace, relative, MAX_DIFF_SOURCE_BYTES).catch(
        (error: unknown) => ({ refused: error instanceof Error ? error.message : String(error) }),
      )
    : undefined;
  const before = current && 'text' in current ? current.text : undefined;
  let after: string | undefined;
  if (name === 'fs/write') after = typeof input.content === 'string' ? input.content : '';
  else if (before !== undefined && typeof input.old_text === 'string') {
    const replacement = typeof input.new_text === 'string' ? input.new_text : '';
    after =
      input.replace_all === true
        ? before.split(input.old_text).join(replacement)
        : before.replace(input.old_text, () => replacement);
  }
  if (name === 'fs/write' && before !== undefined) reasons.push('replaces an existing file');
  const shown = context.showPath(full);
  let diff: string;
  let truncated = false;
  if (current && 'refused' in current)
    diff = `(the current file cannot be shown: ${current.refused})`;
  else if (after === undefined)
    diff = '(the file does not exist yet, or the text to replace is not in it)';
  else {
    const lines = createTwoFilesPatch(shown, shown, before ?? '', after, '', '', { context: 3 })
      .split('\n')
      // The index line and the file headers say nothing the card does not already show.
      .slice(4)
      .filter((line, index, all) => line !== '' || index < all.length - 1);
    truncated = lines.length > MAX_DIFF_LINES;
    diff = lines.slice(0, MAX_DIFF_LINES).join('\n');
  }
  return {
    preview: {
      kind: 'file' as const,
      path: shown,
      change:
        name === 'fs/edit'
          ? ('edit' as const)
          : before === undefined
            ? ('create' as const)
            : ('replace' as const),
      diff,
      truncated,
    },
    risk: { destructive: reasons.some((r) => r.includes('outside')), reasons },
  };
}

function sandboxSummary({ sandbox, showPath }: PreviewContext): string[] {
  const files = {
    deny: 'no file access',
    'read-only': 'reads the workspace, writes nothing',
    scoped: 'reads and writes the workspace only',
    full: 'reads and writes every file you can',
  }[sandbox.filesystem.mode];
  const mounts = sandbox.filesystem.mounts.map(
    (m) => `${m.mode === 'ro' ? 'reads' : 'writes'} ${showPath(m.path)}`,
  );
  const network =
    sandbox.network.mode === 'deny'
      ? 'no network'
      : sandbox.network.mode === 'allowlist'
        ? `network to ${sandbox.network.allowedHosts.join(', ') || 'no host'} only`
        : 'network to any public host';
  return [`sandbox ${sandbox.level}`, files, ...mounts, network];
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

function inside(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}
