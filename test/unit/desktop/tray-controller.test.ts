import { describe, expect, it } from 'vitest';
import { AgentActivity } from '../../../src/main/core/desktop/activity.js';
import { RunEventTracker } from '../../../src/main/core/desktop/run-events.js';
import { TrayController, type TrayView } from '../../../src/main/core/desktop/tray-controller.js';
import type { TrayAction, TrayMenuItem } from '../../../src/main/core/desktop/tray-state.js';
import { ApprovalBroker } from '../../../src/main/core/policy/broker.js';
import type { RunId, SessionId } from '../../../src/main/core/terms.js';

/** The fake Electron Tray: records what it shows and lets the test click menu items. */
class FakeTray implements TrayView {
  image = '';
  tooltip = '';
  menu: TrayMenuItem[] = [];
  renders = 0;
  private onAction: (action: TrayAction) => void = () => {};
  setImage(name: string) {
    this.image = name;
    this.renders++;
  }
  setToolTip(text: string) {
    this.tooltip = text;
  }
  setMenu(items: TrayMenuItem[], onAction: (action: TrayAction) => void) {
    this.menu = items;
    this.onAction = onAction;
  }
  click(action: TrayAction) {
    const item = this.menu.find((entry) => entry.kind !== 'separator' && entry.action === action);
    if (!item || item.kind === 'separator' || (item.kind === 'action' && !item.enabled)) {
      throw new Error(`${action} not clickable`);
    }
    this.onAction(action);
  }
}

function setup() {
  const tray = new FakeTray();
  const activity = new AgentActivity();
  const broker = new ApprovalBroker();
  const commands: string[] = [];
  const cancelled: string[] = [];
  const preferences = { startAtLogin: false };
  const controller = new TrayController({
    view: tray,
    activity,
    approvals: broker,
    commands: {
      open: () => commands.push('open'),
      newChat: () => commands.push('new-chat'),
      showApprovals: () => commands.push('show-approvals'),
      toggleStartAtLogin: async () => {
        preferences.startAtLogin = !preferences.startAtLogin;
      },
      quit: () => commands.push('quit'),
    },
    startAtLogin: () => preferences.startAtLogin,
  });
  controller.start();
  const runs = new RunEventTracker(activity, (id) => cancelled.push(id));
  return { tray, activity, broker, commands, runs, cancelled, preferences };
}

const approval = (broker: ApprovalBroker, id: string) =>
  broker.request({
    id,
    runId: 'run_1' as RunId,
    sessionId: 'ses_1' as SessionId,
    call: { id: 'c', name: 'sys.exec', input: {} },
    reason: 'asks',
    timeoutMs: 60_000,
    signal: new AbortController().signal,
  });

describe('tray controller', () => {
  it('counts held channel work and renders again when it changes', () => {
    const tray = new FakeTray();
    const activity = new AgentActivity();
    const listeners = new Set<() => void>();
    let held: string[] = [];
    const controller = new TrayController({
      view: tray,
      activity,
      approvals: new ApprovalBroker(),
      commands: {
        open: () => undefined,
        newChat: () => undefined,
        showApprovals: () => undefined,
        toggleStartAtLogin: async () => undefined,
        quit: () => undefined,
      },
      held: {
        held: () => held,
        onChange: (listener) => {
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
      },
    });
    controller.start();
    activity.setPaused(true);
    expect(tray.tooltip).toBe('Pincer: paused');
    held = ['a message', 'a firing'];
    for (const listener of listeners) listener();
    expect(tray.tooltip).toBe('Pincer: paused, 2 held');
    expect(tray.menu).toContainEqual(
      expect.objectContaining({ action: 'resume', label: 'Resume the agent (2 held)' }),
    );
    controller.stop();
    expect(listeners.size).toBe(0);
  });

  it('follows runs and approvals: idle -> working -> needs approval -> working -> idle', async () => {
    const { tray, broker, runs } = setup();
    expect(tray.image).toBe('tray-idle.png');
    runs.onEvent({ type: 'run.started', run_id: 'r1' });
    expect(tray.image).toBe('tray-working.png');
    const answer = approval(broker, 'a1');
    expect(tray.image).toBe('tray-needs-approval.png');
    expect(tray.tooltip).toBe('Pincer: 1 approval waiting');
    broker.resolve('a1', 'approve', 'ui');
    await answer;
    expect(tray.image).toBe('tray-working.png');
    runs.onEvent({ type: 'run.finished', run_id: 'r1' });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(tray.image).toBe('tray-idle.png');
  });

  it('menu clicks: pause and resume flip the agent; open, new chat, approvals and quit reach the shell', async () => {
    const { tray, activity, broker, commands } = setup();
    tray.click('pause');
    expect(activity.paused).toBe(true);
    expect(tray.image).toBe('tray-paused.png');
    tray.click('resume');
    expect(activity.paused).toBe(false);
    expect(() => tray.click('show-approvals')).toThrow(/not clickable/);
    const answer = approval(broker, 'a1');
    tray.click('show-approvals');
    tray.click('open');
    tray.click('new-chat');
    tray.click('quit');
    expect(commands).toEqual(['show-approvals', 'open', 'new-chat', 'quit']);
    broker.resolve('a1', 'deny', 'ui');
    await answer;
  });

  it('start at login toggles from the menu, and the checkbox follows', async () => {
    const { tray, preferences } = setup();
    const checkbox = () => tray.menu.find((item) => item.kind === 'checkbox');
    expect(checkbox()).toMatchObject({ label: 'Start at login', checked: false });
    tray.click('toggle-start-at-login');
    await expect.poll(() => checkbox()).toMatchObject({ checked: true });
    expect(preferences.startAtLogin).toBe(true);
  });

  it('does not rebuild the native menu when nothing visible changed', () => {
    const { tray, runs } = setup();
    const before = tray.renders;
    runs.onEvent({ type: 'model.delta', run_id: 'r1' });
    expect(tray.renders).toBe(before);
  });

  it('run events feed the quit drain: a run still going at the deadline is cancelled by id', async () => {
    const { activity, runs, cancelled } = setup();
    runs.onEvent({ type: 'run.started', run_id: 'r1' });
    runs.onEvent({ type: 'run.started', run_id: 'r2' });
    runs.onEvent({ type: 'run.finished', run_id: 'r1' });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(activity.activeRuns).toBe(1);
    const draining = activity.drain(20);
    // The runtime answers a cancel by finishing the run.
    setTimeout(() => runs.onEvent({ type: 'run.finished', run_id: 'r2' }), 40);
    expect(await draining).toEqual({ drained: false, finished: 0, cancelled: 1 });
    expect(cancelled).toEqual(['r2']);
  });
});
