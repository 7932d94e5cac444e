/**
 * The headless assistant: the operations a UI needs on one agent from the root (sessions, runs,
 * approvals, models, secrets, policies, settings, skills, memory). The gateway (`pincer gateway`) and the Electron shell both build on it; nothing here
 * knows which transport carries the calls.
 *
 * What leaves through this interface is shaped for the renderer: ids, names, text, numbers.
 * No secret value and no file path the user did not choose (a model is named by its file name).
 */

import { stat } from 'node:fs/promises';
import os from 'node:os';
import type { GpuMemory } from '../../../shared/gpu-fit.js';
import type {
  AssistantEvent,
  Autonomy,
  ConnectionView,
  ModelsState,
  PendingApprovalView,
  PendingInputView,
  PoliciesView,
  RiskTier,
  RunEventView,
  SecretsView,
  Settings,
  StepView,
} from '../../../shared/ipc-schemas.js';
import { AssistantEventSchema, AutonomySchema } from '../../../shared/ipc-schemas.js';
import {
  type Agent,
  type AgentOptions,
  decodeImages,
  imageBlocks,
  type ModelChoice,
  ModelOptions,
  openAgent,
} from '../agent/index.js';
import { policyRules, providerChain } from '../ckp/index.js';
import { listInstalled, probeGpuMemory } from '../local/index.js';
import {
  BUILTIN_MODELS,
  CONNECTION_ENDPOINT,
  CONNECTION_PROTOCOL,
  CONNECTION_TAKES_IMAGES,
  type Connection,
  ConnectionBook,
  connectionKeyName,
  listServerModels,
} from '../models/index.js';
import type { PendingApproval, PendingInput } from '../policy/index.js';
import type { RunEvent } from '../runtime/index.js';
import { settingsFromManifest } from '../sandbox/index.js';
import type { MessageId, RunId, SessionId } from '../terms.js';
import { directCallContext, readTypedInput } from '../toolcall/index.js';
import { ConfinementError, confine } from '../workspace-fs/index.js';
import { approvalPreview } from './approval-preview.js';
import { messageWithAttachments } from './attachments.js';
import { BackgroundChannels } from './channels.js';
import { ModelDownloads } from './downloads.js';
import { exportConversation } from './export.js';
import { UserLibrary } from './library.js';
import { McpServers } from './mcp-servers.js';
import { ModelImports } from './model-import.js';
import { type EndpointSettings, OpenAiEndpoint } from './openai-endpoint.js';
import { ChatSearch } from './search.js';
import { SessionBook } from './sessions.js';
import { type Assistant, InvalidRequest, NotFound } from './types.js';
import { MessageVersions } from './versions.js';
import { auditEntry, clip, messageView, runSummary, toolCallViews } from './views.js';

export * from './types.js';

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
  const { claw, store, governance, memory, secrets, models, runtime, catalog, locations } = agent;
  // Typed tool calls never resolve `$env` to a secret; names refresh whenever secrets change.
  let knownSecretNames: string[] = await secrets
    .list()
    .then((entries) => entries.map((entry) => entry.name))
    .catch(() => []);

  const listeners = new Set<(event: AssistantEvent) => void>();
  const emit = (event: AssistantEvent) => {
    // Parsed on the way out: only the contract's fields reach a UI. An event the contract does
    // not know (a runtime newer than the contract) is not shown rather than breaking the run
    // that emitted it; so is a listener's failure (a socket closing mid-send).
    const checked = AssistantEventSchema.safeParse(event);
    if (!checked.success) return;
    for (const listener of listeners) {
      try {
        listener(checked.data);
      } catch {
        // One surface failing must not stop the others or the run.
      }
    }
  };

  const book = new SessionBook(store, (id) => runtime.isSessionBusy(id));
  // A conversation's runs are not offered the tools it turned off, and their policy refuses them.
  agent.setTurnedOffTools((sessionId) => book.toolsOff(sessionId));
  const applyPreferences = ({ systemPrompt, temperature }: Settings) =>
    agent.setPreferences({ systemPrompt, temperature });
  applyPreferences(book.settings());
  // The context size chosen in Settings holds from the first load on.
  models.setContextSize(book.settings().contextSize ?? undefined);
  const connections = new ConnectionBook(store.db);
  const search = new ChatSearch(store.db, () => book.deletedIds());
  const versions = new MessageVersions(store.db);
  const picker = new ModelOptions(agent, connections, launch);
  // The remembered default applies where the launch named no model; a pick here sets it anew.
  let defaultId: string | null =
    launch.kind === 'local' && !launch.modelPath ? (book.defaultModel() ?? null) : null;
  const tierOf = (name: string): RiskTier => agent.facts(name)?.tier ?? 'unsafe';
  const { autonomy } = agent;
  // The level chosen in Settings outlives a restart; a stored value that is no level is ignored.
  const keptAutonomy = AutonomySchema.safeParse(book.kept<{ level: Autonomy }>('autonomy').level);
  if (keptAutonomy.success) autonomy.set(keptAutonomy.data);

  // Events carry their session and the tool's screened output: nothing is looked up to show them.
  const view = (event: RunEvent): RunEventView =>
    (event.type === 'tool.finished'
      ? { ...event, output: clip(event.output) }
      : event) as RunEventView;
  const stopRunEvents = agent.onRunEvent((event) =>
    emit({ topic: 'run', sessionId: event.session_id, event: view(event) }),
  );

  // Previews are worked out once per approval (they read the file a write would change).
  const previews = new Map<string, Pick<PendingApprovalView, 'preview' | 'risk'>>();
  const knownHosts = new Set<string>();
  const sandboxSettings = settingsFromManifest(claw, {
    workspace: governance.workspace,
    dataDir: agent.dataDir,
  });
  const previewOf = async (pending: PendingApproval) => {
    const found = await approvalPreview(pending.call, {
      workspace: governance.workspace,
      sandbox: sandboxSettings,
      knownHosts,
      // The full path a person must judge, the home folder written as ~.
      showPath: (text) => text.split(os.homedir()).join('~'),
    }).catch(() => ({ preview: null, risk: { destructive: false, reasons: [] } }));
    // What a person reads is screened like the arguments are.
    const screened = governance.scanner.redactValue(found);
    previews.set(pending.id, screened);
    return screened;
  };
  const approvalView = (pending: PendingApproval): PendingApprovalView => ({
    ...(previews.get(pending.id) ?? { preview: null, risk: { destructive: false, reasons: [] } }),
    id: pending.id,
    runId: pending.runId,
    sessionId: pending.sessionId,
    call: governance.scanner.redactValue(pending.call),
    reason: pending.reason,
    rule: pending.rule ?? null,
    tier: tierOf(pending.call.name),
    // A call whose preview is destructive is asked about every time.
    sessionApprovable: pending.sessionApprovable && !previews.get(pending.id)?.risk.destructive,
    sessionScope: governance.scanner.redactValue(pending.sessionScope?.label ?? null),
    expiresAt: pending.expiresAt ?? null,
    prediction: pending.prediction ? governance.scanner.redactValue(pending.prediction) : null,
  });
  const stopRequests = governance.broker.onRequest((pending) => {
    void previewOf(pending).then(() =>
      emit({ topic: 'approval.requested', approval: approvalView(pending) }),
    );
  });
  const stopResolved = governance.broker.onResolved((id, answer) => {
    const preview = previews.get(id)?.preview;
    if (answer.approved && preview?.kind === 'fetch' && preview.host) knownHosts.add(preview.host);
    previews.delete(id);
    emit({ topic: 'approval.resolved', id, approved: answer.approved, by: answer.by });
  });

  // A server's form: its texts are the server's, screened like tool output before a person reads them.
  const inputView = (pending: PendingInput): PendingInputView =>
    governance.scanner.redactValue({
      id: pending.id,
      runId: pending.runId,
      sessionId: pending.sessionId,
      callId: pending.callId ?? null,
      tool: pending.tool ?? null,
      source: pending.source,
      message: pending.message,
      fields: pending.fields,
      sensitive: pending.sensitive === true,
      warning: pending.warning ?? null,
      expiresAt: pending.expiresAt,
    });
  const stopInputRequests = governance.inputs.onRequest((pending) =>
    emit({ topic: 'input.requested', input: inputView(pending) }),
  );
  const stopInputResolved = governance.inputs.onResolved((pending, outcome) =>
    emit({
      topic: 'input.resolved',
      id: pending.id,
      action: outcome.answer.action,
      by: outcome.by,
    }),
  );

  const downloads = new ModelDownloads(catalog, locations.modelsDir, {
    onProgress: (pull) => emit({ topic: 'model.pull', pull }),
    onInstalled: (fileName) => void adoptIfNone(fileName),
    screenError: (text) => screenError(text),
  });
  // Longest first: the data dir usually lies inside the home folder.
  const hidden: Array<[string, string]> = [
    [agent.dataDir, '<data dir>'],
    [os.homedir(), '~'],
  ];
  const screenError = (text: string) =>
    hidden.reduce(
      (out, [place, name]) => (place ? out.split(place).join(name) : out),
      agent.redactor.redact(text).text,
    );
  // A sub-agent runs in a runtime of its own, kept by the delegation.
  const liveRun = (id: string) =>
    runtime.isLive(id as RunId) || agent.delegation.isLive(id as RunId);

  const imports = new ModelImports(locations.modelsDir);
  /** A model that just arrived answers at once when nothing was chosen yet (the first run). */
  const adoptIfNone = async (fileName: string) => {
    if (picker.selectedId === null && runtime.activeRuns === 0) {
      await picker.select(`local:${fileName}`).catch(() => undefined);
      if (picker.selectedId) {
        book.setDefaultModel(picker.selectedId);
        defaultId = picker.selectedId;
      }
    }
    emit({ topic: 'models.changed' });
  };
  const machineRamBytes = os.totalmem();
  let gpuProbe: Promise<GpuMemory | null> | undefined;
  // Room for the system and the app beside the model.
  const fits = (ramBytes: number) => ramBytes <= machineRamBytes * 0.7;
  const chatModels = [...catalog.models]
    .filter((m) => m.kind === 'chat')
    .sort((a, b) => b.ramBytes - a.ramBytes);
  const recommended = (chatModels.find((m) => fits(m.ramBytes)) ?? chatModels.at(-1))?.name ?? null;

  /** The local engine and the scripted model cost nothing; a remote one only if priced. */
  const priceKnown = (): boolean => {
    if (models.kind !== 'remote') return true;
    const selected = picker.selectedId ?? '';
    const name = selected.startsWith('provider:')
      ? claw.providers.find((p) => `provider:${p.name}` === selected)?.spec.model
      : models.label().split('/').slice(1).join('/');
    return BUILTIN_MODELS.some(
      (m) =>
        (m.apiModel === name || m.id === name) &&
        (m.pricing.inputPer1k > 0 || m.pricing.outputPer1k > 0),
    );
  };

  const localModelView = async (): Promise<ModelsState['localModel']> => {
    const facts = await models.localFacts();
    if (!facts) return null;
    return {
      trainedContext: facts.trainContextSize ?? null,
      fileBytes: facts.bytes,
      kvBytesPerToken: facts.kvBytesPerToken ?? null,
      contextSize: models.localContextSize ?? null,
    };
  };

  /**
   * A new context size reaches a loaded local engine by reloading it, once nothing uses it (no
   * reply of the app running, nothing of the Local API's waiting); until then it keeps its size.
   */
  let contextReloadWanted = false;
  const reloadForContext = async () => {
    const external = endpoint.view();
    if (!contextReloadWanted || !models.loaded || models.kind !== 'local') {
      contextReloadWanted = false;
      return;
    }
    if (runtime.activeRuns > 0 || external.active + external.queued > 0) return;
    contextReloadWanted = false;
    await models.unload();
    emit({ topic: 'models.changed' });
    await models.load().catch(() => undefined);
    emit({ topic: 'models.changed' });
  };

  const modelsState = async (): Promise<ModelsState> => {
    const installed = await listInstalled(catalog, locations.modelsDir).catch(() => []);
    const files = new Set(installed.map((m) => m.fileName));
    return {
      priced: priceKnown(),
      recommended,
      machineRamBytes,
      contextWindow: models.contextWindow,
      localModel: await localModelView(),
      active: models.label(),
      kind: models.kind,
      loaded: models.loaded,
      catalog: catalog.models.map((entry) => ({
        name: entry.name,
        displayName: entry.displayName,
        kind: entry.kind,
        sizeBytes: entry.sizeBytes,
        license: entry.license,
        installed: files.has(entry.fileName),
        selected: models.kind === 'local' && models.selectedFile === entry.fileName,
        pull: downloads.state(entry.name),
        optionId:
          entry.kind === 'chat' && files.has(entry.fileName) ? `local:${entry.fileName}` : null,
        ramBytes: entry.ramBytes,
        fits: fits(entry.ramBytes),
      })),
      otherFiles: installed.filter((m) => !m.entry).map((m) => m.fileName),
      options: await picker.list(),
      selectedId: picker.selectedId,
      defaultId,
    };
  };

  /** Switches to the option (an id, or a legacy catalog, file or provider name). */
  const switchTo = async (ref: string) => {
    const option = (await picker.find(ref)) ?? (await picker.find(`local:${ref}`));
    if (!option) {
      const byCatalog = catalog.models.find((m) => m.name === ref);
      if (byCatalog) return picker.select(`local:${byCatalog.fileName}`);
      throw new NotFound(`model "${ref}" is not installed or configured: pull or add it first`);
    }
    await picker.select(option.id);
  };

  /** The key to ask a server with: the one given, else the saved connection's (its own address only). */
  const connectionKey = async (request: {
    name?: string;
    endpoint?: string;
    key?: string;
  }): Promise<{ key: string | undefined; endpoint: string | undefined }> => {
    if (request.key || !request.name) return { key: request.key, endpoint: request.endpoint };
    const saved = connections.get(request.name);
    if (!saved) return { key: undefined, endpoint: request.endpoint };
    if (request.endpoint && request.endpoint !== saved.endpoint) {
      throw new InvalidRequest(
        `a saved key is only sent to the address it was saved with (${saved.endpoint}); enter the key again for a new address`,
      );
    }
    const found = saved.keyName ? await secrets.get(saved.keyName) : undefined;
    return { key: found?.value, endpoint: saved.endpoint };
  };
  const connectionView = (connection: Connection): ConnectionView => ({ ...connection });

  const secretsView = async (): Promise<SecretsView> => {
    const [names, backends] = await Promise.all([secrets.list(), secrets.status()]);
    knownSecretNames = names.map((n) => n.name);
    return {
      names: names.map((n) => ({ name: n.name, backend: n.backend, shadowed: n.shadowed })),
      backends: backends.map((b) => ({
        id: b.id,
        label: b.label,
        writable: b.writable,
        available: b.availability.available,
      })),
    };
  };

  const policiesView = (): PoliciesView => ({
    autonomy: autonomy.level,
    manifestAutonomy: autonomy.manifestLevel,
    rules: policyRules(claw).map((rule) => ({
      policy: rule.policy,
      id: rule.id,
      action: rule.action,
      scope: rule.scope,
      reason: rule.reason ?? null,
    })),
  });

  const requireSession = (id: string) => {
    if (!book.exists(id)) throw new NotFound(`no session ${id}`);
  };

  const endpoint = new OpenAiEndpoint({
    models,
    secrets,
    catalog,
    modelsDir: locations.modelsDir,
    load: () => book.kept<EndpointSettings>('openai.endpoint'),
    save: (settings) => book.keep('openai.endpoint', settings),
    changed: (view) => emit({ topic: 'openaiEndpoint.changed', endpoint: view }),
    modelLoaded: () => emit({ topic: 'models.changed' }),
  });
  // On at the last close: on again now (a failure shows in its view, not as a failed launch).
  await endpoint.resume();

  const assistant: Assistant = {
    sandboxBackend: agent.sandboxBackend,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    listSessions: () => book.list(),
    sessionTools(sessionId) {
      requireSession(sessionId);
      const off = book.toolsOff(sessionId);
      return agent.offeredTools().map((tool) => ({ ...tool, enabled: !off.has(tool.name) }));
    },
    setSessionTool(sessionId, tool, enabled) {
      requireSession(sessionId);
      if (!agent.offeredTools().some((offered) => offered.name === tool))
        throw new NotFound(`no tool "${tool}" is offered to this conversation`);
      book.setToolEnabled(sessionId, tool, enabled);
      return assistant.sessionTools(sessionId);
    },
    createSession(title) {
      const created = book.create(title);
      emit({ topic: 'sessions.changed' });
      return created;
    },
    requestNewChat() {
      emit({ topic: 'ui.newChat' });
    },
    renameSession(id, title) {
      const renamed = book.rename(id, title);
      emit({ topic: 'sessions.changed' });
      return renamed;
    },
    deleteSession(id) {
      book.delete(id);
      emit({ topic: 'sessions.changed' });
    },
    branchSession(id, messageId) {
      const copy = book.branch(id, messageId);
      emit({ topic: 'sessions.changed' });
      return copy;
    },
    searchChats: (query) => search.find(query),
    exportSession(id, format) {
      return exportConversation(assistant.history(id), format);
    },
    history(id, leafId) {
      const session = book.get(id);
      const leaf = leafId ? versions.newestBelow(id, leafId) : store.latestMessage(id as SessionId);
      const messages = store.branch(leaf as MessageId | null).map((stored) => ({
        ...messageView(stored),
        siblings: versions.siblings(id, stored.id),
      }));
      const runs = store.listRuns({ sessionId: id as SessionId, limit: 500 }).reverse();
      return {
        session,
        messages,
        runs: runs.map((run) => runSummary(run, liveRun(run.id))),
        toolCalls: runs.flatMap((run) =>
          toolCallViews(
            run.id,
            store.toolCalls(run.id),
            governance.audit.list({ runId: run.id }),
            liveRun(run.id),
            tierOf,
          ),
        ),
      };
    },

    send({ sessionId, text: typedText, fromMessageId, attachments, images: attachedImages }) {
      const isNew = !sessionId;
      if (sessionId) requireSession(sessionId);
      // `@fs/list{path="."}` typed in the chat runs the tools directly, still under policy; an
      // attached file's content is never read as a tool call.
      const typed = readTypedInput(typedText);
      const text = messageWithAttachments(typedText, attachments ?? []);
      if (typed.kind === 'invalid') {
        const { line, column, detail } = typed.error;
        throw new InvalidRequest(`tool call, line ${line}, column ${column}: ${detail}`);
      }
      // Checked here whatever the window checked: the bytes, the limits, and the model in force
      // (prepareSend put this conversation's model in force) must take images.
      const images = imageBlocks(decodeImages(attachedImages ?? []), {
        takesImages: models.takesImages,
        label: models.label(),
      });
      if (images.length > 0 && typed.kind === 'calls')
        throw new InvalidRequest(
          'images go with a message to the model, not with typed tool calls',
        );
      const handle = runtime.start({
        text,
        ...(images.length > 0 ? { images } : {}),
        sessionId: sessionId as SessionId | undefined,
        fromMessageId: fromMessageId as MessageId | null | undefined,
        ...(typed.kind === 'calls'
          ? {
              calls: {
                program: typed.program,
                context: directCallContext({
                  secretNames: knownSecretNames,
                  secretValues: agent.redactor.values(),
                  ctx: { today: new Date().toISOString().slice(0, 10) },
                }),
              },
            }
          : {}),
      });
      // A new conversation keeps the model it started with.
      if (isNew && picker.selectedId) book.setSessionModel(handle.sessionId, picker.selectedId);
      // Every send changes a session's busy state (and a new one appears).
      emit({ topic: 'sessions.changed' });
      void handle.done.finally(() => {
        emit({ topic: 'sessions.changed' });
        // A context size chosen during the reply reloads the engine now that it is free.
        if (contextReloadWanted) void reloadForContext();
      });
      return { runId: handle.runId, sessionId: handle.sessionId };
    },
    cancel(runId) {
      const handle = runtime.handle(runId as RunId);
      if (!handle) return false;
      handle.cancel();
      return true;
    },
    async finished(runId) {
      await runtime.handle(runId as RunId)?.done;
    },
    liveEvents(runId) {
      const handle = runtime.handle(runId as RunId);
      if (!handle) return [];
      return handle.events.events.map(view);
    },
    listRuns: (filter = {}) =>
      store
        .listRuns({ sessionId: filter.sessionId as SessionId | undefined, limit: filter.limit })
        .map((run) => runSummary(run, liveRun(run.id))),
    run(runId) {
      const row = store.getRun(runId as RunId);
      if (!row) throw new NotFound(`no run ${runId}`);
      const audit = governance.audit.list({ runId });
      const steps: StepView[] = store.steps(row.id);
      return {
        run: runSummary(row, liveRun(runId)),
        steps,
        toolCalls: toolCallViews(runId, store.toolCalls(row.id), audit, liveRun(runId), tierOf),
        audit: audit.map(auditEntry),
        children: store.childRuns(row.id).map((child) => runSummary(child, liveRun(child.id))),
      };
    },

    pendingApprovals: () => governance.broker.pending().map(approvalView),
    resolveApproval(id, verdict, reason) {
      if (verdict === 'approve-for-session' && previews.get(id)?.risk.destructive)
        return 'not_session_approvable';
      // `by` reaches the model with a denial ("not approved (ui: reason)"), so the reason does too.
      return governance.broker.resolve(id, verdict, reason ? `ui: ${reason}` : 'ui');
    },

    pendingInputs: () => governance.inputs.pending().map(inputView),
    resolveInput: (id, answer) => governance.inputs.resolve(id, answer, 'ui'),

    models: modelsState,
    gpuMemory: () => {
      gpuProbe ??= probeGpuMemory();
      return gpuProbe;
    },
    pullModel: (name) => downloads.start(name),
    async selectModel(ref, sessionId) {
      if (sessionId) requireSession(sessionId);
      await switchTo(ref);
      const id = picker.selectedId;
      if (id) {
        // Remembered for the conversation in view and for the next new one.
        if (sessionId) book.setSessionModel(sessionId, id);
        book.setDefaultModel(id);
        defaultId = id;
      }
      emit({ topic: 'models.changed' });
      if (sessionId) emit({ topic: 'sessions.changed' });
      return modelsState();
    },
    importModel: {
      begin: (fileName, sizeBytes) => imports.begin(fileName, sizeBytes),
      chunk: (id, offset, data) => imports.chunk(id, offset, data),
      async finish(id) {
        const { fileName, note } = await imports.finish(id);
        await adoptIfNone(fileName);
        return { fileName, ...(note ? { note } : {}), models: await modelsState() };
      },
      cancel: (id) => imports.cancel(id),
    },
    async prepareSend(sessionId) {
      if (picker.selectedId === null && launch.kind === 'local' && !launch.modelPath) {
        throw new InvalidRequest(
          'There is no model yet: download the recommended one, import a GGUF file, or connect a provider (Settings → Models or Providers).',
        );
      }
      const wanted = sessionId ? (book.sessionModel(sessionId) ?? null) : defaultId;
      if (!wanted || wanted === picker.selectedId) return;
      try {
        await picker.select(wanted);
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        throw new InvalidRequest(
          runtime.activeRuns > 0
            ? `this conversation answers with another model than the reply running now (${models.label()}); wait for that reply or stop it`
            : `this conversation's model cannot be used (${why}); choose another model`,
        );
      }
      emit({ topic: 'models.changed' });
    },
    async loadModel() {
      await models.load();
      emit({ topic: 'models.changed' });
      return modelsState();
    },
    async unloadModel() {
      if (runtime.activeRuns > 0) throw new Error('a run is in progress: wait or cancel it first');
      const external = endpoint.view();
      if (external.active + external.queued > 0)
        throw new Error('other apps are using the model through the Local API: try again shortly');
      await models.unload();
      emit({ topic: 'models.changed' });
      return modelsState();
    },
    async providers() {
      const names = new Set((await secrets.list()).map((entry) => entry.name));
      const providers = claw.providers.map((provider) => {
        const ref = provider.spec.auth?.secret_ref ?? null;
        return {
          name: provider.name,
          protocol: provider.spec.protocol,
          model: provider.spec.model,
          endpoint: provider.spec.endpoint,
          secretRef: ref,
          hasKey: ref !== null && (names.has(ref) || process.env[ref] !== undefined),
          fallback: providerChain(claw, provider)
            .slice(1)
            .map((p) => p.name),
        };
      });
      return {
        providers,
        connections: connections.list().map(connectionView),
        routing: `chat: ${models.label()}`,
      };
    },
    async testProvider(request) {
      const { key, endpoint } = await connectionKey(request);
      return listServerModels({
        protocol: CONNECTION_PROTOCOL[request.kind],
        endpoint: endpoint ?? CONNECTION_ENDPOINT[request.kind],
        apiKey: key,
      });
    },
    async addProvider(request) {
      const { key, endpoint: given } = await connectionKey(request);
      const endpoint = given ?? CONNECTION_ENDPOINT[request.kind];
      if (!endpoint) throw new InvalidRequest('an OpenAI-compatible server needs its address');
      if (!key && request.kind !== 'openai-compatible')
        throw new InvalidRequest(`${request.kind} needs an API key`);
      // Saved only once the server answered: a wrong address or key is said now, not mid-chat.
      const listed = await listServerModels({
        protocol: CONNECTION_PROTOCOL[request.kind],
        endpoint,
        apiKey: key,
      });
      const keyName = key ? connectionKeyName(request.name) : null;
      if (key && keyName) await secrets.set(keyName, key);
      const connection: Connection = {
        name: request.name,
        kind: request.kind,
        endpoint,
        keyName,
        models: listed,
        takesImages: request.takesImages ?? CONNECTION_TAKES_IMAGES[request.kind],
      };
      connections.save(connection);
      emit({ topic: 'models.changed' });
      return connectionView(connection);
    },
    async removeProvider(name) {
      const saved = connections.get(name);
      if (!saved) throw new NotFound(`no provider "${name}"`);
      connections.remove(name);
      if (saved.keyName) await secrets.delete(saved.keyName).catch(() => undefined);
      emit({ topic: 'models.changed' });
    },

    secrets: secretsView,
    async setSecret(name, value) {
      await secrets.set(name, value);
      return secretsView();
    },
    async deleteSecret(name) {
      await secrets.delete(name);
      return secretsView();
    },

    policies: policiesView,
    setAutonomy(level) {
      autonomy.set(level);
      book.keep('autonomy', { level });
      return policiesView();
    },

    settings: () => book.settings(),
    workspace: () => governance.workspace,
    async workspaceTarget(relative) {
      // Tool cards name files relative to the workspace; a path out of it (.., a link) is refused.
      const target = await confine(governance.workspace, relative ?? '.').catch((error) => {
        throw error instanceof ConfinementError ? new InvalidRequest(error.message) : error;
      });
      const found = await stat(target).catch(() => undefined);
      if (!found) throw new NotFound(`"${relative ?? '.'}" is not in the workspace`);
      return { path: target, isFolder: found.isDirectory() };
    },
    updateSettings(patch) {
      const before = book.settings();
      const next = book.saveSettings(patch);
      applyPreferences(next);
      if (next.contextSize !== before.contextSize) {
        models.setContextSize(next.contextSize ?? undefined);
        contextReloadWanted = models.kind === 'local' && models.loaded;
        void reloadForContext();
        emit({ topic: 'models.changed' });
      }
      emit({ topic: 'settings.changed', settings: next });
      return next;
    },

    skills: () =>
      memory.skills.list().map((skill) => ({
        name: skill.name,
        description: skill.description,
        enabled: skill.enabled,
        trust: skill.trust,
      })),
    async searchMemory(query) {
      const found = await memory.store.search(query, { limit: 10 });
      return {
        hits: found.hits.map((hit) => ({
          text: clip(hit.text, 2000),
          score: hit.score,
          source: hit.source,
        })),
        notice: found.notice ?? null,
      };
    },

    openaiEndpoint: endpoint,
    library: new UserLibrary(agent.dataDir, memory),
    mcpServers: new McpServers(agent.dataDir, agent.mcp),
    channels: new BackgroundChannels(agent, emit),

    modelLabel: () => models.label(),
    screenError,
    async close() {
      await endpoint.close();
      stopRequests();
      stopResolved();
      stopInputRequests();
      stopInputResolved();
      stopRunEvents();
      listeners.clear();
      await imports.close();
      await agent.close();
    },
  };
  return assistant;
}
export { SessionBook } from './sessions.js';
