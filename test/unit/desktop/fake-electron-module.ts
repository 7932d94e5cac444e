/**
 * A stand-in for the `electron` module (vi.mock), implementing just what src/main/app uses, with
 * everything recorded, so the glue itself runs in tests: windows, tray, menus, notifications,
 * message boxes, shortcuts, sessions.
 */
import { EventEmitter } from 'node:events';
import path from 'node:path';
import { testEncryptor } from '../../support/secrets.js';

export const repoRoot = path.resolve(import.meta.dirname, '../../..');

interface Preventable {
  defaultPrevented: boolean;
  preventDefault(): void;
}
const preventable = (): Preventable => ({
  defaultPrevented: false,
  preventDefault() {
    this.defaultPrevented = true;
  },
});

class FakeWebContents extends EventEmitter {
  readonly sent: Array<{ channel: string; payload: unknown }> = [];
  openHandler: ((details: { url: string }) => { action: string }) | null = null;
  send(channel: string, payload: unknown) {
    this.sent.push({ channel, payload });
  }
  setWindowOpenHandler(handler: (details: { url: string }) => { action: string }) {
    this.openHandler = handler;
  }
}

export class BrowserWindow extends EventEmitter {
  static readonly all: BrowserWindow[] = [];
  readonly webContents = new FakeWebContents();
  visible = false;
  focused = false;
  destroyed = false;
  loaded: string | null = null;
  maximized = false;
  bounds: { x: number; y: number; width: number; height: number };
  constructor(
    readonly options: {
      webPreferences?: Record<string, unknown>;
      x?: number;
      y?: number;
      width?: number;
      height?: number;
    },
  ) {
    super();
    this.bounds = {
      x: options.x ?? 100,
      y: options.y ?? 100,
      width: options.width ?? 800,
      height: options.height ?? 600,
    };
    BrowserWindow.all.push(this);
    app.emit('web-contents-created', preventable(), this.webContents);
  }
  static getAllWindows() {
    return BrowserWindow.all.filter((w) => !w.destroyed);
  }
  isDestroyed = () => this.destroyed;
  isMinimized = () => false;
  isVisible = () => this.visible;
  isFocused = () => this.focused;
  restore() {}
  maximize() {
    this.maximized = true;
  }
  isMaximized = () => this.maximized;
  getNormalBounds = () => ({ ...this.bounds });
  /** What the user's drag does: Electron emits 'moved' once the move ends. */
  moveTo(x: number, y: number) {
    this.bounds = { ...this.bounds, x, y };
    this.emit('moved');
  }
  show() {
    this.visible = true;
    this.focused = true;
    this.emit('show');
  }
  hide() {
    this.visible = false;
    this.focused = false;
    this.emit('hide');
  }
  focus() {
    this.focused = true;
  }
  blur() {
    this.focused = false;
    this.emit('blur');
  }
  /** What the user's close button does. */
  close() {
    const event = preventable();
    this.emit('close', event);
    if (!event.defaultPrevented) {
      this.destroyed = true;
      this.visible = false;
      this.emit('closed');
    }
  }
  async loadURL(url: string) {
    this.loaded = url;
    // The shell shows the window on ready-to-show.
    queueMicrotask(() => this.emit('ready-to-show'));
  }
  async loadFile(file: string) {
    this.loaded = file;
    // The shell shows the window on ready-to-show.
    queueMicrotask(() => this.emit('ready-to-show'));
  }
}

export class Tray {
  static current: Tray | null = null;
  image = '';
  tooltip = '';
  menu: Array<{
    label?: string;
    type?: string;
    enabled?: boolean;
    checked?: boolean;
    click?: () => void;
  }> = [];
  destroyed = false;
  constructor(image: { path: string }) {
    this.image = image.path;
    Tray.current = this;
  }
  setImage(image: { path: string }) {
    this.image = image.path;
  }
  setToolTip(text: string) {
    this.tooltip = text;
  }
  setContextMenu(menu: Tray['menu']) {
    this.menu = menu;
  }
  destroy() {
    this.destroyed = true;
  }
  click(label: string | RegExp) {
    const item = this.menu.find((entry) =>
      typeof label === 'string' ? entry.label === label : label.test(entry.label ?? ''),
    );
    if (!item?.click) throw new Error(`no tray item ${String(label)}`);
    item.click();
  }
}

export const Menu = {
  application: null as unknown,
  buildFromTemplate: <T>(template: T) => template,
  setApplicationMenu(menu: unknown) {
    Menu.application = menu;
  },
};
export const screen = {
  getPrimaryDisplay: () => ({ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }),
  getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }],
};
export const nativeImage = {
  createFromPath: (file: string) => ({ path: file, setTemplateImage() {} }),
};

export class Notification extends EventEmitter {
  static readonly shown: Array<{ title: string; body: string }> = [];
  /** The notifications shown, to click (`emit('click')`) as a person would. */
  static readonly instances: Notification[] = [];
  static isSupported = () => true;
  constructor(readonly options: { title: string; body: string }) {
    super();
  }
  show() {
    Notification.shown.push({ title: this.options.title, body: this.options.body });
    Notification.instances.push(this);
  }
}

interface Box {
  parent: BrowserWindow | null;
  options: { message: string; buttons: string[]; signal?: AbortSignal; cancelId?: number };
  answer(index: number): void;
}
const boxes: Box[] = [];
export const dialog = {
  boxes,
  showMessageBox(
    first: BrowserWindow | Box['options'],
    second?: Box['options'],
  ): Promise<{ response: number }> {
    const parent = first instanceof BrowserWindow ? first : null;
    const options = (second ?? first) as Box['options'];
    return new Promise((resolve) => {
      boxes.push({ parent, options, answer: (response) => resolve({ response }) });
      options.signal?.addEventListener('abort', () => resolve({ response: options.cancelId ?? 0 }));
    });
  },
};

export const globalShortcut = {
  registered: new Map<string, () => void>(),
  register(accelerator: string, callback: () => void) {
    this.registered.set(accelerator, callback);
    return true;
  },
  unregister(accelerator: string) {
    this.registered.delete(accelerator);
  },
  unregisterAll() {
    this.registered.clear();
  },
};

export const shell = {
  opened: [] as string[],
  openExternal: async (url: string) => void shell.opened.push(url),
};

type PermissionRequest = (
  contents: unknown,
  permission: string,
  callback: (granted: boolean) => void,
  details: { requestingUrl?: string },
) => void;
type PermissionCheck = (contents: unknown, permission: string, origin: string) => boolean;

const defaultSession = {
  permissionRequest: null as PermissionRequest | null,
  permissionCheck: null as PermissionCheck | null,
  webRequest: { onHeadersReceived() {} },
  setPermissionRequestHandler(handler: PermissionRequest) {
    defaultSession.permissionRequest = handler;
  },
  setPermissionCheckHandler(handler: PermissionCheck) {
    defaultSession.permissionCheck = handler;
  },
};
export const session = { defaultSession };

class FakeApp extends EventEmitter {
  quitCalls = 0;
  isPackaged = false;
  loginItem: unknown = null;
  getAppPath = () => repoRoot;
  quit() {
    this.quitCalls++;
    const event = preventable();
    this.emit('before-quit', event);
    if (!event.defaultPrevented) this.emit('will-quit');
  }
  setLoginItemSettings(settings: unknown) {
    this.loginItem = settings;
  }
  getLoginItemSettings = () => ({ wasOpenedAtLogin: false });
}

export const app = new FakeApp();

/** Electron's protocol module: privileged schemes and handlers, recorded. */
export const protocol = {
  privileged: [] as Array<{ scheme: string; privileges?: Record<string, boolean> }>,
  handlers: new Map<string, (request: Request) => Response | Promise<Response>>(),
  registerSchemesAsPrivileged(
    schemes: Array<{ scheme: string; privileges?: Record<string, boolean> }>,
  ) {
    protocol.privileged.push(...schemes);
  },
  handle(scheme: string, handler: (request: Request) => Response | Promise<Response>) {
    if (protocol.handlers.has(scheme)) throw new Error(`${scheme} is already handled`);
    protocol.handlers.set(scheme, handler);
  },
};
export const ipcMain = { handle() {} };

/**
 * Electron's safeStorage with a real cipher (AES-256-GCM under a per-process key, as the OS key
 * would be) and a choosable Linux backend.
 */
const osKey = testEncryptor();
export const safeStorageState = { available: true, backend: 'gnome_libsecret' };
export const safeStorage = {
  isEncryptionAvailable: () => safeStorageState.available,
  getSelectedStorageBackend: () => safeStorageState.backend,
  encryptString: (text: string) => osKey.encrypt(text),
  decryptString: (data: Buffer) => osKey.decrypt(data),
};
