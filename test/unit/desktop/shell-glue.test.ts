/**
 * The Electron glue of src/main/app run for real against a stand-in `electron` module and the
 * real scripted assistant: window hardening, close to tray, native approval dialog, tray menu,
 * security handlers and the graceful quit.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DesktopShell } from '../../../src/main/app/shell.js';
import { DEFAULT_GLOBAL_SHORTCUT } from '../../../src/main/core/desktop/settings.js';
import { type AssistantFixture, scriptedAssistant } from '../../support/assistant-harness.js';
import * as electron from './fake-electron-module.js';

vi.mock('electron', () => import('./fake-electron-module.js'));

const { startDesktopShell } = await import('../../../src/main/app/shell.js');
const { installSecurityPolicies } = await import('../../../src/main/app/security.js');
const { shellCoreFromAssistant } = await import('../../../src/main/core/desktop/assistant-core.js');

let fixture: AssistantFixture;
let shell: DesktopShell;
let xdg = '';
const savedXdg = process.env.XDG_CONFIG_HOME;
const opened: string[] = [];

beforeAll(async () => {
  // Start-at-login on Linux writes under XDG_CONFIG_HOME: keep it in a scratch dir.
  xdg = await mkdtemp(path.join(os.tmpdir(), 'pincer-xdg-'));
  process.env.XDG_CONFIG_HOME = xdg;
  installSecurityPolicies({ openExternal: (url) => opened.push(url) });
  fixture = await scriptedAssistant({ delayMs: 5 });
  shell = await startDesktopShell({
    dataDir: fixture.dataDir,
    core: shellCoreFromAssistant(fixture.assistant),
    drainTimeoutMs: 300,
  });
});

afterAll(async () => {
  process.env.XDG_CONFIG_HOME = savedXdg;
  // The last test quit the app, which closed the assistant: only its directory is left.
  await fixture.close().catch(() => {});
  await rm(fixture.dataDir, { recursive: true, force: true });
  await rm(xdg, { recursive: true, force: true });
});

const window = () => electron.BrowserWindow.all[0] as electron.BrowserWindow;
const tray = () => electron.Tray.current as electron.Tray;

describe('the Electron glue (stand-in electron module, real assistant)', () => {
  it('opens one hardened window on start, with the preload and the built renderer', async () => {
    expect(electron.BrowserWindow.all).toHaveLength(1);
    expect(window().options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webviewTag: false,
      preload: expect.stringMatching(/preload[/\\]index\.cjs$/),
    });
    await expect.poll(() => window().visible).toBe(true);
    // The built renderer on the app's privileged scheme, never file:// (or the dev server).
    expect(window().loaded).toMatch(/^app:\/\/pincer\/index\.html$|^http/);
  });

  it('guards every web contents and refuses every permission', () => {
    const contents = window().webContents;
    expect(contents.openHandler?.({ url: 'https://example.org/' })).toEqual({ action: 'deny' });
    expect(opened).toEqual(['https://example.org/']);
    let prevented = false;
    contents.emit(
      'will-navigate',
      { preventDefault: () => (prevented = true) },
      'https://evil.example/',
    );
    expect(prevented).toBe(true);
    const answers: boolean[] = [];
    electron.session.defaultSession.permissionRequest?.({}, 'media', (ok) => answers.push(ok), {});
    expect(answers).toEqual([false]);
    expect(electron.session.defaultSession.permissionCheck?.({}, 'notifications', 'file://')).toBe(
      false,
    );
  });

  it('shows the tray with the idle icon, and registers the summon shortcut', () => {
    expect(tray().image).toMatch(/resources[/\\]tray[/\\]tray-idle\.png$/);
    expect(tray().tooltip).toBe('Pincer: idle');
    expect(tray().menu.map((item) => item.label ?? '---')).toEqual([
      'Open Pincer',
      'New chat',
      '---',
      'No approvals pending',
      'Pause the agent',
      '---',
      'Start at login',
      'Quit Pincer',
    ]);
    expect([...electron.globalShortcut.registered.keys()]).toEqual([DEFAULT_GLOBAL_SHORTCUT]);
  });

  it('installs the application menu with Quit, and remembers where the window was moved', async () => {
    const roles = JSON.stringify(electron.Menu.application);
    expect(roles).toContain('"role":"quit"');
    window().moveTo(40, 30);
    await expect
      .poll(async () =>
        JSON.parse(
          await readFile(path.join(fixture.dataDir, 'desktop.json'), 'utf8').catch(() => '{}'),
        ),
      )
      .toMatchObject({ window: { x: 40, y: 30, width: 1100, height: 760, maximized: false } });
  });

  it('closing the window hides it to the tray; the notice is shown once and remembered', async () => {
    window().close();
    expect(window().destroyed).toBe(false);
    expect(window().visible).toBe(false);
    window().show();
    window().close();
    const notices = electron.Notification.shown.filter(
      (n) => n.title === 'Pincer is still running',
    );
    expect(notices).toHaveLength(1);
    await expect
      .poll(async () =>
        JSON.parse(await readFile(path.join(fixture.dataDir, 'desktop.json'), 'utf8')),
      )
      .toMatchObject({ closeToTrayNoticeShown: true });
  });

  it('window in the tray: a tool approval becomes a notification, and clicking it an app-modal message box', async () => {
    const { runId } = fixture.assistant.send({ text: 'write a note' });
    await expect
      .poll(() => electron.Notification.shown.at(-1)?.title)
      .toBe('Pincer needs your approval');
    expect(electron.dialog.boxes).toHaveLength(0);
    electron.Notification.instances.at(-1)?.emit('click');
    await expect.poll(() => electron.dialog.boxes.length).toBe(1);
    const box = electron.dialog.boxes[0];
    expect(box?.parent).toBeNull();
    expect(box?.options.message).toBe('Allow the tool "fs/write" to run?');
    expect(box?.options.buttons).toContain('Deny');
    expect(box?.options.signal).toBeInstanceOf(AbortSignal);
    expect(electron.Notification.shown.at(-1)?.title).toBe('Pincer needs your approval');
    await expect.poll(() => tray().image).toMatch(/tray-needs-approval\.png$/);
    expect(tray().menu.map((item) => item.label)).toContain('1 approval pending…');
    box?.answer(box.options.buttons.indexOf('Approve'));
    await fixture.assistant.finished(runId);
    expect(fixture.assistant.run(runId).run.outcome).toBe('completed');
    await expect.poll(() => tray().image).toMatch(/tray-idle\.png$/);
  });

  it('the tray menu pauses and resumes the agent, and summons the window', () => {
    tray().click('Pause the agent');
    expect(shell.activity.paused).toBe(true);
    expect(tray().image).toMatch(/tray-paused\.png$/);
    tray().click('Resume the agent');
    expect(shell.activity.paused).toBe(false);
    tray().click('Open Pincer');
    expect(window().visible).toBe(true);
    window().hide();
    electron.globalShortcut.registered.get(DEFAULT_GLOBAL_SHORTCUT)?.();
    expect(window().visible).toBe(true);
  });

  it('start at login from the tray: an XDG autostart entry that starts hidden, remembered', async () => {
    const entry = path.join(xdg, 'autostart', 'pincer.desktop');
    tray().click('Start at login');
    await expect.poll(() => readFile(entry, 'utf8').catch(() => '')).toContain('--hidden');
    await expect
      .poll(async () =>
        JSON.parse(await readFile(path.join(fixture.dataDir, 'desktop.json'), 'utf8')),
      )
      .toMatchObject({ startAtLogin: true });
    expect(tray().menu.find((item) => item.label === 'Start at login')).toMatchObject({
      type: 'checkbox',
      checked: true,
    });
    tray().click('Start at login');
    await expect.poll(() => readFile(entry, 'utf8').catch(() => 'gone')).toBe('gone');
  });

  it('quit is held while runs drain; a run past the deadline is cancelled; then everything is released', async () => {
    const outcomes: string[] = [];
    fixture.assistant.subscribe((event) => {
      if (event.topic === 'run' && event.event.type === 'run.finished') {
        outcomes.push(event.event.outcome);
      }
    });
    fixture.assistant.send({ text: 'slow reply please' });
    await expect.poll(() => shell.activity.activeRuns).toBe(1);
    const quitsBefore = electron.app.quitCalls;
    let willQuit = false;
    electron.app.once('will-quit', () => {
      willQuit = true;
    });
    tray().click('Quit Pincer');
    expect(willQuit).toBe(false); // held: the run is still going
    expect(() => shell.activity.admit('user')).toThrow(/quitting/);
    await expect.poll(() => willQuit, { timeout: 10_000 }).toBe(true);
    expect(outcomes).toEqual(['cancelled']);
    expect(electron.app.quitCalls).toBe(quitsBefore + 2);
    expect(electron.globalShortcut.registered.size).toBe(0);
    expect(tray().destroyed).toBe(true);
    // The assistant is closed: its database refuses work.
    expect(() => fixture.assistant.listSessions()).toThrow();
    // Now a close really closes.
    window().close();
    expect(window().destroyed).toBe(true);
  }, 30_000);
});
