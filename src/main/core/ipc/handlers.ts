import type { AppInfo } from '../../../shared/ipc.js';
import { type Assistant, InvalidRequest } from '../assistant/index.js';
import type { DesktopPreferences } from '../desktop/index.js';
import { PINCER_VERSION, PRODUCT_NAME } from '../product.js';
import type { IpcHandlers } from './dispatch.js';

export interface CoreHandlerOptions {
  assistant: Assistant;
  /** Electron's version when the desktop shell hosts the core; null when headless. */
  electronVersion: string | null;
  /** Shows a folder or file in the system's file manager (the desktop); absent when headless. */
  reveal?: (target: { path: string; isFolder: boolean }) => Promise<void>;
  /** The desktop shell's preferences (Settings → Desktop); absent when headless. */
  desktop?: () => Pick<DesktopPreferences, 'view' | 'update'> | undefined;
}

/** What Settings → Desktop shows where no desktop shell hosts the core (the browser). */
const NO_DESKTOP = {
  available: false,
  startAtLogin: false,
  closeToTray: false,
  globalShortcut: null,
  shortcutProblem: null,
} as const;

/** The core side of the contract, identical whichever transport carries the call. */
export function createCoreHandlers({
  assistant: a,
  electronVersion,
  reveal,
  desktop,
}: CoreHandlerOptions): IpcHandlers {
  const info: AppInfo = {
    name: PRODUCT_NAME,
    version: PINCER_VERSION,
    platform: process.platform,
    arch: process.arch,
    node: process.versions.node,
    electron: electronVersion,
    transport: electronVersion === null ? 'gateway' : 'electron',
    sandbox: a.sandboxBackend,
  };
  return errorsScreened(a, {
    'app.getInfo': () => info,

    'sessions.list': () => a.listSessions(),
    'sessions.create': ({ title }) => a.createSession(title),
    'sessions.rename': ({ sessionId, title }) => a.renameSession(sessionId, title),
    'sessions.delete': ({ sessionId }) => {
      a.deleteSession(sessionId);
      return { ok: true as const };
    },
    'sessions.branch': ({ sessionId, messageId }) => a.branchSession(sessionId, messageId),
    'sessions.history': ({ sessionId, leafId }) => a.history(sessionId, leafId),
    'sessions.tools.get': ({ sessionId }) => a.sessionTools(sessionId),
    'sessions.tools.set': ({ sessionId, tool, enabled }) =>
      a.setSessionTool(sessionId, tool, enabled),
    'sessions.search': ({ query }) => ({ hits: a.searchChats(query) }),
    'sessions.export': ({ sessionId, format }) => a.exportSession(sessionId, format),

    'chat.send': async (request) => {
      await a.prepareSend(request.sessionId);
      return a.send(request);
    },
    'chat.cancel': ({ runId }) => ({ cancelled: a.cancel(runId) }),

    'runs.list': (filter) => a.listRuns(filter),
    'runs.get': ({ runId }) => a.run(runId),
    'runs.events': ({ runId }) => a.liveEvents(runId),

    'approvals.list': () => a.pendingApprovals(),
    'approvals.resolve': ({ approvalId, verdict, reason }) => ({
      result: a.resolveApproval(approvalId, verdict, reason),
    }),

    'inputs.list': () => a.pendingInputs(),
    'inputs.resolve': ({ inputId, action, content }) => {
      if (action !== 'accept') {
        if (content !== undefined) throw new InvalidRequest('content goes with accept only');
        return { ...a.resolveInput(inputId, { action }), errors: [] };
      }
      const answered = a.resolveInput(inputId, { action, content: content ?? {} });
      return { errors: [], ...answered };
    },

    'models.list': () => a.models(),
    'models.gpu': () => a.gpuMemory(),
    'models.pull': ({ name }) => a.pullModel(name),
    'models.select': ({ id, sessionId }) => a.selectModel(id, sessionId),
    'models.import.begin': async ({ fileName, sizeBytes }) => ({
      importId: await a.importModel.begin(fileName, sizeBytes),
    }),
    'models.import.chunk': async ({ importId, offset, data }) => ({
      receivedBytes: await a.importModel.chunk(importId, offset, Buffer.from(data, 'base64')),
    }),
    'models.import.finish': ({ importId }) => a.importModel.finish(importId),
    'models.import.cancel': async ({ importId }) => {
      await a.importModel.cancel(importId);
      return { ok: true as const };
    },
    'models.load': () => a.loadModel(),
    'models.unload': () => a.unloadModel(),
    'providers.list': () => a.providers(),
    'providers.test': async (request) => ({ models: await a.testProvider(request) }),
    'providers.add': (request) => a.addProvider(request),
    'providers.remove': async ({ name }) => {
      await a.removeProvider(name);
      return { ok: true as const };
    },

    'secrets.list': () => a.secrets(),
    'secrets.set': ({ name, value }) => a.setSecret(name, value),
    'secrets.delete': ({ name }) => a.deleteSecret(name),

    'policies.get': () => a.policies(),
    'policies.setAutonomy': ({ autonomy }) => a.setAutonomy(autonomy),

    'skills.list': () => ({ available: true, note: null, skills: a.skills() }),
    'skills.add': ({ file, replace }) => a.library.addSkill(file.name, file.text, replace),
    'skills.setEnabled': ({ name, enabled }) => {
      a.library.setSkillEnabled(name, enabled);
      return { available: true, note: null, skills: a.skills() };
    },
    'memory.add': ({ text, name }) => a.library.remember(text, name),
    'memory.search': async ({ query }) => {
      const found = await a.searchMemory(query);
      return { available: true, note: found.notice, hits: found.hits };
    },

    'desktop.get': () => {
      const shell = desktop?.();
      return shell ? { available: true, ...shell.view() } : NO_DESKTOP;
    },
    'desktop.set': async (patch) => {
      const shell = desktop?.();
      if (!shell) throw new InvalidRequest('desktop settings apply to the desktop app only');
      return { available: true, ...(await shell.update(patch)) };
    },
    'settings.get': () => a.settings(),
    'settings.set': (patch) => a.updateSettings(patch),

    'workspace.get': () => ({ path: a.workspace(), canOpen: reveal !== undefined }),
    'workspace.open': async ({ path }) => {
      if (!reveal) throw new InvalidRequest('this window cannot open folders: copy the path');
      await reveal(await a.workspaceTarget(path));
      return { ok: true as const };
    },
    'openaiEndpoint.get': () => a.openaiEndpoint.view(),
    'openaiEndpoint.set': (patch) => a.openaiEndpoint.configure(patch),
    'openaiEndpoint.rotateKey': () => a.openaiEndpoint.rotateKey(),
    'openaiEndpoint.log': () => ({ entries: a.openaiEndpoint.requestLog() }),

    'mcp.list': () => a.mcpServers.list(),
    'mcp.add': (request) => a.mcpServers.add(request),
    'mcp.setEnabled': ({ name, enabled }) => a.mcpServers.setEnabled(name, enabled),
    'mcp.remove': ({ name }) => a.mcpServers.remove(name),

    'background.held': () => a.channels.held(),
    'background.setPaused': ({ paused }) => a.channels.setPaused(paused),
    'channels.list': () => a.channels.list(),
    'channels.approvePairing': ({ code }) => a.channels.approvePairing(code),
    'channels.rejectPairing': ({ code }) => a.channels.rejectPairing(code),
  });
}

/** Every handler's error message leaves screened: no secret, data directory or home folder. */
function errorsScreened(assistant: Assistant, handlers: IpcHandlers): IpcHandlers {
  const wrapped: Record<string, (request: never) => unknown> = {};
  for (const [channel, handler] of Object.entries(handlers)) {
    wrapped[channel] = async (request: never) => {
      try {
        return await (handler as (request: never) => unknown)(request);
      } catch (error) {
        if (error instanceof Error) error.message = assistant.screenError(error.message);
        throw error;
      }
    };
  }
  return wrapped as IpcHandlers;
}
