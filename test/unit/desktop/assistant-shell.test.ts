/**
 * The desktop logic against the real headless assistant (scripted model, real policy, broker,
 * runtime, database): native approval dialogs, the tray and the quit drain see what the UI sees.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AgentActivity } from '../../../src/main/core/desktop/activity.js';
import { ApprovalRouter, windowAttended } from '../../../src/main/core/desktop/approval-router.js';
import {
  admittingAssistant,
  shellCoreFromAssistant,
} from '../../../src/main/core/desktop/assistant-core.js';
import { RunEventTracker } from '../../../src/main/core/desktop/run-events.js';
import { TrayController } from '../../../src/main/core/desktop/tray-controller.js';
import { dispatch } from '../../../src/main/core/ipc/dispatch.js';
import { createCoreHandlers } from '../../../src/main/core/ipc/handlers.js';
import { type AssistantFixture, scriptedAssistant } from '../../support/assistant-harness.js';
import { FakeNativeUi, FakeWindow } from './fake-electron.js';

let fixture: AssistantFixture | null = null;
afterEach(async () => {
  await fixture?.close();
  fixture = null;
});

async function shell() {
  fixture = await scriptedAssistant({ delayMs: 5 });
  const { assistant } = fixture;
  const core = shellCoreFromAssistant(assistant);
  const activity = new AgentActivity();
  const tracker = new RunEventTracker(activity, core.cancelRun);
  core.onRunEvent((event) => tracker.onEvent(event));
  const window = new FakeWindow();
  // A person who clicks the notification as soon as it appears.
  const ui = new FakeNativeUi({ clickAtOnce: true });
  const router = new ApprovalRouter({
    broker: core.approvals,
    ui,
    attended: () => windowAttended(window),
  });
  router.start();
  const icons: string[] = [];
  const tray = new TrayController({
    view: { setImage: (name) => icons.push(name), setToolTip() {}, setMenu() {} },
    activity,
    approvals: core.approvals,
    commands: {
      open() {},
      newChat: core.newChat,
      showApprovals() {},
      toggleStartAtLogin: async () => {},
      quit() {},
    },
  });
  tray.start();
  return { assistant, activity, window, ui, icons };
}

describe('desktop shell over the real assistant', () => {
  it('window in the tray: a guarded tool asks in a native dialog; Approve lets the run finish', async () => {
    const { assistant, window, ui, icons, activity } = await shell();
    window.hide();
    const { runId } = assistant.send({ text: 'write a note' });
    const dialog = await ui.dialogShown(1);
    expect(dialog.model.message).toBe('Allow the tool "fs/write" to run?');
    expect(ui.notices[0]?.body).toContain('fs/write');
    dialog.press('Approve');
    await assistant.finished(runId);
    const detail = assistant.run(runId);
    expect(JSON.stringify(detail)).toContain('ui: native dialog');
    expect(assistant.pendingApprovals()).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(activity.activeRuns).toBe(0);
    // idle -> working -> needs approval -> working -> idle
    expect(icons.filter((icon, i) => icon !== icons[i - 1])).toEqual([
      'tray-idle.png',
      'tray-working.png',
      'tray-needs-approval.png',
      'tray-working.png',
      'tray-idle.png',
    ]);
  });

  it('the UI answering first closes the dialog; the dialog cannot answer again', async () => {
    const { assistant, window, ui } = await shell();
    window.hide();
    const { runId } = assistant.send({ text: 'write a note' });
    const dialog = await ui.dialogShown(1);
    const [pending] = assistant.pendingApprovals();
    expect(assistant.resolveApproval(pending?.id ?? '', 'deny')).toBe('resolved');
    expect(dialog.signal.aborted).toBe(true);
    dialog.press('Approve');
    await assistant.finished(runId);
    expect(JSON.stringify(assistant.run(runId))).not.toContain('native dialog');
  });

  it('quit drain: a run still streaming at the deadline is cancelled through the assistant', async () => {
    const { assistant, activity } = await shell();
    const { runId } = assistant.send({ text: 'slow reply please' });
    await expect.poll(() => activity.activeRuns).toBe(1);
    const report = await activity.drain(50);
    expect(report).toEqual({ drained: false, finished: 0, cancelled: 1 });
    await assistant.finished(runId);
    expect(assistant.run(runId).run.outcome).toBe('cancelled');
  });

  it('once quitting began, chat.send over IPC is refused with a clear error and starts no run', async () => {
    const { assistant, activity } = await shell();
    const handlers = createCoreHandlers({
      assistant: admittingAssistant(assistant, activity),
      electronVersion: '45.4.1',
    });
    const before = await dispatch(handlers, 'chat.send', { text: 'hello' });
    expect(before).toMatchObject({ ok: true });
    await expect.poll(() => activity.activeRuns).toBe(0);
    const runsBefore = assistant.listRuns().length;
    const draining = activity.drain(1_000);
    const refused = await dispatch(handlers, 'chat.send', { text: 'one more' });
    expect(refused).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining('Pincer is quitting') },
    });
    expect(assistant.listRuns()).toHaveLength(runsBefore);
    await draining;
  });
});
