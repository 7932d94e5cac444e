/**
 * The numbering `pincer chat` gives the attached agent's other runs' approvals: a number stays
 * with its approval until it is answered, an answer from elsewhere is news and one given here is
 * not, and the announcement names the tool, what it would do and the channel.
 */
import { expect, it } from 'vitest';
import { approvalLine, BackgroundApprovals } from '../../../src/main/cli/attached-commands.js';
import type { PendingApprovalView } from '../../../src/shared/ipc.js';

const approval = (
  id: string,
  preview: PendingApprovalView['preview'] = null,
): PendingApprovalView => ({
  id,
  runId: `run_${id}`,
  sessionId: `ses_${id}`,
  call: { id: 'c', name: 'shell/run', input: { command: 'ls -la' } },
  reason: 'shell commands ask',
  rule: null,
  tier: 'unsafe',
  sessionApprovable: true,
  sessionScope: null,
  expiresAt: null,
  preview,
  risk: { destructive: false, reasons: [] },
});

it('keeps each number with its approval until it is answered', () => {
  const book = new BackgroundApprovals();
  expect(book.add(approval('a'))).toBe(1);
  expect(book.add(approval('b'))).toBe(2);
  expect(book.add(approval('a'))).toBeUndefined();
  // Answered elsewhere: its number is news, and the other keeps its own.
  expect(book.settle('a', 'denied by ui')).toBe(1);
  expect(book.get(1)).toBeUndefined();
  expect(book.answeredAs(1)).toBe('denied by ui');
  expect(book.get(2)?.id).toBe('b');
  expect(book.add(approval('c'))).toBe(3);
  // Answered here: not announced again.
  expect(book.claim(2)?.id).toBe('b');
  expect(book.settle('b', 'approved here')).toBeUndefined();
  expect(book.list().map(([number]) => number)).toEqual([3]);
});

it('announces the tool, a short preview and the channel that started the run', () => {
  const line = approvalLine(
    4,
    approval('x', {
      kind: 'command',
      command: `echo ${'y'.repeat(300)}`,
      shell: true,
      cwd: '~',
      sandbox: [],
    }),
    { channel: 'hook', type: 'webhook', userId: 'ci' },
  );
  expect(line).toMatch(
    /^\[approval 4\] shell\/run \(\$ echo y+ … \(305 chars\) … y+\) · from webhook hook \(ci\) · \/approve 4, \/deny 4$/,
  );
  expect(line.length).toBeLessThan(200);
  expect(approvalLine(1, approval('z'), null)).toBe(
    '[approval 1] shell/run {"command":"ls -la"} · /approve 1, /deny 1',
  );
});
