/**
 * A small fake of the Electron APIs the desktop modules use: the modules take structural
 * interfaces, and this implements those same shapes with recorded calls.
 */
import { EventEmitter } from 'node:events';
import type {
  ApprovalDialogModel,
  ApprovalNotice,
} from '../../../src/main/core/desktop/approval-dialog.js';
import type { NativeApprovalUi } from '../../../src/main/core/desktop/approval-router.js';
import type { ShortcutRegistry } from '../../../src/main/core/desktop/shortcut.js';
import type {
  GuardedContents,
  PreventableEvent,
} from '../../../src/main/core/desktop/web-guard.js';
import type {
  SingleInstanceApp,
  SummonableWindow,
} from '../../../src/main/core/desktop/window-control.js';

export class FakeWindow implements SummonableWindow {
  visible = true;
  focused = true;
  minimized = false;
  destroyed = false;
  readonly calls: string[] = [];

  isDestroyed = () => this.destroyed;
  isMinimized = () => this.minimized;
  isVisible = () => this.visible;
  isFocused = () => this.focused;
  restore = () => {
    this.calls.push('restore');
    this.minimized = false;
  };
  show = () => {
    this.calls.push('show');
    this.visible = true;
  };
  hide = () => {
    this.calls.push('hide');
    this.visible = false;
    this.focused = false;
  };
  focus = () => {
    this.calls.push('focus');
    this.focused = true;
  };
  blur = () => {
    this.focused = false;
  };
  minimize = () => {
    this.minimized = true;
    this.focused = false;
  };
}

export class FakeApp implements SingleInstanceApp {
  private readonly emitter = new EventEmitter();
  quitCalls = 0;
  constructor(private readonly lockHeldElsewhere: boolean) {}
  requestSingleInstanceLock = () => !this.lockHeldElsewhere;
  quit = () => {
    this.quitCalls += 1;
  };
  on(event: 'second-instance', listener: () => void): this {
    this.emitter.on(event, listener);
    return this;
  }
  /** What Electron does when another copy starts: (event, argv, workingDirectory). */
  launchAnother(argv: string[]): void {
    this.emitter.emit('second-instance', { preventDefault() {} }, argv, '/');
  }
}

/** A native dialog the test answers by pressing a button, or that closes when aborted. */
export interface OpenDialog {
  model: ApprovalDialogModel;
  signal: AbortSignal;
  press(label: string): void;
}

export class FakeNativeUi implements NativeApprovalUi {
  readonly notices: ApprovalNotice[] = [];
  /** Click handlers of the notifications shown, in order. */
  private readonly clicks: Array<() => void> = [];
  readonly dialogs: OpenDialog[] = [];
  /** Dialogs closed by an abort, in order. */
  readonly closedByAbort: string[] = [];
  private waiters: Array<() => void> = [];

  /**
   * `supported: false` is a system without notifications; `clickAtOnce` a person who clicks
   * each notification as it appears.
   */
  constructor(private readonly options: { supported?: boolean; clickAtOnce?: boolean } = {}) {}

  notify(notice: ApprovalNotice, onClick: () => void): boolean {
    if (this.options.supported === false) return false;
    this.notices.push(notice);
    this.clicks.push(onClick);
    if (this.options.clickAtOnce) onClick();
    return true;
  }

  /** The person clicks the `index`th notification. */
  clickNotice(index: number): void {
    const click = this.clicks[index];
    if (!click) throw new Error(`no notification ${index} (${this.notices.length} shown)`);
    click();
  }

  ask(model: ApprovalDialogModel, signal: AbortSignal): Promise<number> {
    return new Promise((resolve) => {
      const dialog: OpenDialog = {
        model,
        signal,
        press: (label) => {
          const index = model.buttons.indexOf(label);
          if (index < 0) throw new Error(`no button "${label}" in ${model.buttons.join(', ')}`);
          resolve(index);
        },
      };
      // Electron closes a message box whose signal aborts and resolves with cancelId.
      signal.addEventListener('abort', () => {
        this.closedByAbort.push(model.message);
        resolve(model.cancelId);
      });
      this.dialogs.push(dialog);
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  /** Resolves once `count` dialogs were shown in total. */
  async dialogShown(count: number): Promise<OpenDialog> {
    while (this.dialogs.length < count) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    return this.dialogs[count - 1] as OpenDialog;
  }
}

type Listener = (event: PreventableEvent, url: string) => void;

export class FakeWebContents implements GuardedContents {
  private openHandler: ((details: { url: string }) => { action: 'deny' }) | null = null;
  private readonly listeners = new Map<string, Listener[]>();

  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void {
    this.openHandler = handler;
  }
  on(event: string, listener: Listener): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }
  /** window.open / target=_blank: the action Electron would take. */
  windowOpen(url: string): 'deny' | 'allow' {
    return this.openHandler ? this.openHandler({ url }).action : 'allow';
  }
  /** Emits a preventable event; true when some listener prevented it. */
  emit(event: 'will-navigate' | 'will-redirect' | 'will-attach-webview', url = ''): boolean {
    let prevented = false;
    const preventable = { preventDefault: () => (prevented = true) };
    for (const listener of this.listeners.get(event) ?? []) listener(preventable, url);
    return prevented;
  }
}

export class FakeGlobalShortcut implements ShortcutRegistry {
  readonly registered = new Map<string, () => void>();
  constructor(private readonly takenElsewhere: string[] = []) {}
  register(accelerator: string, callback: () => void): boolean {
    if (this.takenElsewhere.includes(accelerator)) return false;
    this.registered.set(accelerator, callback);
    return true;
  }
  unregister(accelerator: string): void {
    this.registered.delete(accelerator);
  }
  press(accelerator: string): void {
    this.registered.get(accelerator)?.();
  }
}
