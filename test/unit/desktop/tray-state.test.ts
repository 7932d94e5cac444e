import { describe, expect, it } from 'vitest';
import {
  trayIconName,
  trayMenu,
  trayStatus,
  trayTooltip,
} from '../../../src/main/core/desktop/tray-state.js';

const idle = { activeRuns: 0, pendingApprovals: 0, paused: false };

describe('tray state', () => {
  it('is idle, working, or needs approval; approvals outrank work, work outranks paused', () => {
    expect(trayStatus(idle)).toBe('idle');
    expect(trayStatus({ ...idle, activeRuns: 2 })).toBe('working');
    expect(trayStatus({ ...idle, activeRuns: 2, pendingApprovals: 1 })).toBe('needs-approval');
    expect(trayStatus({ ...idle, paused: true })).toBe('paused');
    expect(trayStatus({ ...idle, paused: true, activeRuns: 1 })).toBe('working');
  });

  it('has one icon per status and a tooltip that counts', () => {
    expect(trayIconName('needs-approval')).toBe('tray-needs-approval.png');
    expect(trayTooltip({ ...idle, pendingApprovals: 1 })).toBe('Pincer: 1 approval waiting');
    expect(trayTooltip({ ...idle, pendingApprovals: 3 })).toBe('Pincer: 3 approvals waiting');
    expect(trayTooltip({ ...idle, activeRuns: 2, paused: true })).toBe(
      'Pincer: working (2 runs), paused for new runs',
    );
    expect(trayTooltip(idle)).toBe('Pincer: idle');
  });

  it('menu: open, new chat, approvals count, pause/resume, start at login, quit', () => {
    const labels = (snapshot: typeof idle, startAtLogin = false) =>
      trayMenu(snapshot, { startAtLogin }).map((item) => {
        if (item.kind === 'separator') return '---';
        if (item.kind === 'checkbox')
          return `${item.action}:${item.label} [${item.checked ? 'x' : ' '}]`;
        return `${item.action}:${item.label}${item.enabled ? '' : ' (off)'}`;
      });
    expect(labels(idle)).toEqual([
      'open:Open Pincer',
      'new-chat:New chat',
      '---',
      'show-approvals:No approvals pending (off)',
      'pause:Pause the agent',
      '---',
      'toggle-start-at-login:Start at login [ ]',
      'quit:Quit Pincer',
    ]);
    expect(labels({ ...idle, paused: true, pendingApprovals: 2 }, true)).toEqual([
      'open:Open Pincer',
      'new-chat:New chat',
      '---',
      'show-approvals:2 approvals pending…',
      'resume:Resume the agent',
      '---',
      'toggle-start-at-login:Start at login [x]',
      'quit:Quit Pincer',
    ]);
  });

  it('counts the channel work the pause holds in the menu and the tooltip', () => {
    const paused = { ...idle, paused: true, held: 3 };
    const resume = trayMenu(paused).find(
      (item) => item.kind === 'action' && item.action === 'resume',
    );
    expect(resume).toMatchObject({ label: 'Resume the agent (3 held)', enabled: true });
    expect(trayTooltip(paused)).toBe('Pincer: paused, 3 held');
    expect(trayTooltip({ ...paused, held: 0 })).toBe('Pincer: paused');
  });
});
