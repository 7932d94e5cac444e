/**
 * The headless assistant: the operations a UI needs on one agent from the root. The gateway
 * (`pincer gateway`) and the Electron shell both build on it; nothing here knows which
 * transport carries the calls.
 *
 * What leaves through this interface is shaped for the renderer: ids, names, text, numbers.
 * No secret value and no file path the user did not choose (a model is named by its file name).
 *
 * This file only wires: each IPC namespace has its service in `services/`, owning its part of
 * the state; `Assistant` joins their interfaces flat (see `types.ts`).
 */

import {
  type Agent,
  type AgentOptions,
  type ModelChoice,
  ModelOptions,
  openAgent,
} from '../agent/index.js';
import { ConnectionBook } from '../models/index.js';
import { BackgroundChannels } from './channels.js';
import { AssistantEvents } from './events.js';
import { McpServers } from './mcp-servers.js';
import { type EndpointSettings, OpenAiEndpoint } from './openai-endpoint.js';
import { RunRecords } from './run-records.js';
import { errorScreen } from './screen-error.js';
import { approvalsService } from './services/approvals.js';
import { chatService } from './services/chat.js';
import { libraryService } from './services/library.js';
import { modelsService } from './services/models.js';
import type { AssistantParts } from './services/parts.js';
import { providersService } from './services/providers.js';
import { SecretNames, secretsService } from './services/secrets.js';
import { sessionsService } from './services/sessions.js';
import { settingsService } from './services/settings.js';
import { SessionBook } from './sessions.js';
import type { Assistant } from './types.js';

export { SessionBook } from './sessions.js';
export { type Assistant, InvalidRequest, NotFound } from './types.js';

/** The assistant over a new agent; closing it closes the agent. */
export async function createAssistant(options: AgentOptions): Promise<Assistant> {
  // The app keeps a few conversations' KV caches warm; a CLI command needs one.
  const agent = await openAgent({ ...options, local: { maxConversations: 4, ...options.local } });
  try {
    return await assistantOver(agent, options.model);
  } catch (error) {
    await agent.close();
    throw error;
  }
}

/**
 * The operations a UI needs, over an agent from the root; `close` closes the agent. `launch` is
 * the choice the agent was opened with (the picker offers it again).
 */
export async function assistantOver(
  agent: Agent,
  launch: ModelChoice = { kind: 'local' },
): Promise<Assistant> {
  const { models, runtime, secrets, store } = agent;
  const secretNames = await SecretNames.read(secrets);
  const events = new AssistantEvents();
  const stops: Array<() => unknown> = [];
  const parts: AssistantParts = {
    agent,
    book: new SessionBook(store, (id) => runtime.isSessionBusy(id)),
    emit: events.emit,
    onClose: (stop) => stops.push(stop),
  };
  const { book, emit } = parts;
  const connections = new ConnectionBook(store.db);
  const picker = new ModelOptions(agent, connections, launch);
  const records = new RunRecords(agent);
  const screenError = errorScreen((text) => agent.redactor.redact(text).text, agent.dataDir);

  const endpoint = new OpenAiEndpoint({
    models,
    secrets,
    catalog: agent.catalog,
    modelsDir: agent.locations.modelsDir,
    load: () => book.kept<EndpointSettings>('openai.endpoint'),
    save: (settings) => book.keep('openai.endpoint', settings),
    changed: (view) => emit({ topic: 'openaiEndpoint.changed', endpoint: view }),
    modelLoaded: () => emit({ topic: 'models.changed' }),
  });
  const endpointBusy = () => {
    const { active, queued } = endpoint.view();
    return active + queued > 0;
  };
  // A new context size waits for the engine to be free: no reply running, no Local API request.
  const reloadWhenFree = () =>
    models.reloadWhenFree(
      () => runtime.activeRuns > 0 || endpointBusy(),
      () => emit({ topic: 'models.changed' }),
    );

  const assistant: Assistant = {
    sandboxBackend: agent.sandboxBackend,
    subscribe: (listener) => events.subscribe(listener),
    ...sessionsService(parts, records),
    ...settingsService(parts, reloadWhenFree),
    ...chatService(parts, {
      records,
      picker,
      secretNames: () => secretNames.current(),
      runEnded: () => {
        if (models.resizePending) void reloadWhenFree();
      },
    }),
    ...approvalsService(parts, records.tierOf),
    ...modelsService(parts, { picker, launch, endpointBusy, screenError }),
    ...providersService(parts, connections),
    ...secretsService(secrets, secretNames),
    ...libraryService(parts),
    openaiEndpoint: endpoint,
    mcpServers: new McpServers(agent.dataDir, agent.mcp),
    channels: new BackgroundChannels(agent, emit),
    screenError,
    async close() {
      await endpoint.close();
      for (const stop of stops) await stop();
      events.clear();
      await agent.close();
    },
  };
  // On at the last close: on again now (a failure shows in its view, not as a failed launch).
  await endpoint.resume();
  return assistant;
}
