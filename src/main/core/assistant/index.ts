/**
 * The headless assistant: one profile database, run store, tool registry, governance (policy,
 * approvals, audit, scanner), model slot and agent runtime, and the operations a UI needs on
 * them. The gateway (`pincer gateway`) and the Electron shell both build on it; nothing here
 * knows which transport carries the calls.
 *
 * What leaves through this interface is shaped for the renderer: ids, names, text, numbers.
 * No secret value and no file path the user did not choose (a model is named by its file name).
 */

import os from 'node:os';
import type {
  AssistantEvent,
  Autonomy,
  ModelsState,
  PendingApprovalView,
  PoliciesView,
  RiskTier,
  RunEventView,
  SecretsView,
  StepView,
} from '../../../shared/ipc-schemas.js';
import { AssistantEventSchema } from '../../../shared/ipc-schemas.js';
import { toolDisplayName } from '../../../shared/messages.js';
import {
  autonomyOf,
  loadActiveClaw,
  policyRules,
  providerChain,
  type ResolvedClaw,
  resourcesDirOf,
} from '../ckp/index.js';
import type { ModelCatalog } from '../local/catalog.js';
import { listInstalled } from '../local/model-manager.js';
import { localSetup } from '../local/setup.js';
import type { PendingApproval } from '../policy/broker.js';
import { PolicyEngine } from '../policy/engine.js';
import { manifestToolFacts } from '../policy/from-manifest.js';
import type { RunEvent } from '../runtime/events.js';
import { AgentRuntime, type RunHandle } from '../runtime/runtime.js';
import type { MessageId, RunId, SessionId } from '../runtime/terms.js';
import { createSecretStore, secretRedactor } from '../secrets/index.js';
import { openDatabase, profileDatabasePath } from '../storage/database.js';
import { directCallContext, readTypedInput } from '../toolcall/index.js';
import { openAgentParts } from './agent-parts.js';
import { AutonomySwitch } from './autonomy.js';
import { ModelDownloads } from './downloads.js';
import { ModelSlot } from './model-slot.js';
import { SessionBook } from './sessions.js';
import { type Assistant, type AssistantOptions, InvalidRequest, NotFound } from './types.js';
import { auditEntry, clip, messageView, runSummary, toolCallViews } from './views.js';

export type { ModelChoice } from './model-slot.js';
export * from './types.js';

export async function createAssistant(options: AssistantOptions): Promise<Assistant> {
  const { claw } = await loadActiveClaw(
    { dataDir: options.dataDir, resourcesDir: resourcesDirOf(options.appDir) },
    options.manifest,
  );
  const setup = await localSetup(options.appDir, options.dataDir);
  const catalog = options.catalog ?? setup.catalog;
  const db = openDatabase(profileDatabasePath(options.dataDir));
  try {
    return await assemble(options, claw, catalog, setup.locations, db);
  } catch (error) {
    db.close();
    throw error;
  }
}

async function assemble(
  options: AssistantOptions,
  claw: ResolvedClaw,
  catalog: ModelCatalog,
  locations: Awaited<ReturnType<typeof localSetup>>['locations'],
  db: ReturnType<typeof openDatabase>,
): Promise<Assistant> {
  const slot = new ModelSlot(options.model, catalog, locations);
  await slot.resolveDefault();
  const localModel = slot.kind === 'local';
  const secrets = options.secrets ?? createSecretStore({ dataDir: options.dataDir });
  // The same parts `pincer run` wires (tools in the sandbox, memory, skills, context, compaction).
  const parts = await openAgentParts({
    claw,
    db,
    dataDir: options.dataDir,
    appDir: options.appDir,
    model: slot.access,
    secrets,
    tools: options.tools,
    system: options.system,
    threads: options.model.kind === 'local' ? options.model.threads : undefined,
    contextWindow: options.model.kind === 'local' ? options.model.contextSize : undefined,
    // The local engine decodes tool calls under a grammar: narrowed schemas (as `pincer run`).
    grammar: localModel ? { maxString: options.maxArgLength } : undefined,
  });
  const { store, registry, governance, memory } = parts;
  const declared = manifestToolFacts(claw);
  const facts = (name: string) => registry.facts(name) ?? declared.get(name);
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

  const live = new Map<string, RunHandle>();
  const sessionOfRun = new Map<string, string>();
  const isBusy = (id: SessionId) => [...live.values()].some((h) => h.sessionId === id);
  const book = new SessionBook(store, isBusy);
  const tierOf = (name: string): RiskTier => facts(name)?.tier ?? 'unsafe';

  // Autonomy: the manifest's level unless the UI overrides it for this process.
  const autonomy = new AutonomySwitch(
    autonomyOf(claw) as Autonomy,
    governance.policy,
    (level) =>
      new PolicyEngine({
        rules: policyRules(claw),
        autonomy: level,
        facts,
        context: { workspace: governance.workspace, home: os.homedir() },
        broker: governance.broker,
      }),
  );

  const toolOutput = (runId: string, callId: string): string | undefined => {
    const row = store.toolCalls(runId as RunId).find((call) => call.callId === callId);
    return row?.result === null || row?.result === undefined ? undefined : clip(row.result);
  };
  const onRunEvent = (event: RunEvent) => {
    governance.audit.record(event);
    if (event.type === 'run.started') sessionOfRun.set(event.run_id, event.session_id);
    const sessionId = sessionOfRun.get(event.run_id) ?? store.getRun(event.run_id)?.sessionId;
    if (!sessionId) return;
    const view =
      event.type === 'tool.finished'
        ? { ...event, output: toolOutput(event.run_id, event.call_id) }
        : event;
    emit({ topic: 'run', sessionId, event: view as RunEventView });
    if (event.type === 'run.finished') sessionOfRun.delete(event.run_id);
  };

  const runtime = new AgentRuntime({
    ...parts.runtime,
    policy: autonomy,
    onEvent: onRunEvent,
    generation: options.generation,
    guards: options.guards,
  });

  const approvalView = (pending: PendingApproval): PendingApprovalView => ({
    id: pending.id,
    runId: pending.runId,
    sessionId: pending.sessionId,
    call: {
      ...governance.scanner.redactValue(pending.call),
      name: toolDisplayName(pending.call.name),
    },
    reason: pending.reason,
    rule: pending.rule ?? null,
    tier: tierOf(pending.call.name),
    sessionApprovable: pending.sessionApprovable,
    expiresAt: pending.expiresAt ?? null,
  });
  const stopRequests = governance.broker.onRequest((pending) =>
    emit({ topic: 'approval.requested', approval: approvalView(pending) }),
  );
  const stopResolved = governance.broker.onResolved((id, answer) =>
    emit({ topic: 'approval.resolved', id, approved: answer.approved, by: answer.by }),
  );

  const downloads = new ModelDownloads(catalog, locations.modelsDir, {
    onProgress: (pull) => emit({ topic: 'model.pull', pull }),
    onInstalled: () => emit({ topic: 'models.changed' }),
    scrub: (text) => scrub(text),
  });
  // Longest first: the data dir usually lies inside the home folder.
  const hidden: Array<[string, string]> = [
    [options.dataDir, '<data dir>'],
    [os.homedir(), '~'],
  ];
  const scrub = (text: string) =>
    hidden.reduce((out, [place, name]) => (place ? out.split(place).join(name) : out), text);
  const liveRun = (id: string) => runtime.isLive(id as RunId);

  const modelsState = async (): Promise<ModelsState> => {
    const installed = await listInstalled(catalog, locations.modelsDir).catch(() => []);
    const files = new Set(installed.map((m) => m.fileName));
    return {
      active: slot.label(),
      kind: slot.kind,
      loaded: slot.loaded,
      catalog: catalog.models.map((entry) => ({
        name: entry.name,
        displayName: entry.displayName,
        kind: entry.kind,
        sizeBytes: entry.sizeBytes,
        license: entry.license,
        installed: files.has(entry.fileName),
        selected: slot.kind === 'local' && slot.selectedFile === entry.fileName,
        pull: downloads.state(entry.name),
      })),
      otherFiles: installed.filter((m) => !m.entry).map((m) => m.fileName),
    };
  };

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

  const assistant: Assistant = {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    listSessions: () => book.list(),
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
    history(id) {
      const session = book.get(id);
      const messages = store.branch(store.latestMessage(id as SessionId)).map(messageView);
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

    send({ sessionId, text, fromMessageId }) {
      if (sessionId) requireSession(sessionId);
      // `@fs/list{path="."}` typed in the chat runs the tools directly, still under policy.
      const typed = readTypedInput(text);
      if (typed.kind === 'invalid') {
        const { line, column, detail } = typed.error;
        throw new InvalidRequest(`tool call, line ${line}, column ${column}: ${detail}`);
      }
      const handle = runtime.start({
        text,
        sessionId: sessionId as SessionId | undefined,
        fromMessageId: fromMessageId as MessageId | undefined,
        ...(typed.kind === 'calls'
          ? {
              calls: {
                program: typed.program,
                context: directCallContext({
                  secretNames: knownSecretNames,
                  secretValues: secretRedactor.entries().map((entry) => entry.value),
                  ctx: { today: new Date().toISOString().slice(0, 10) },
                }),
              },
            }
          : {}),
      });
      live.set(handle.runId, handle);
      sessionOfRun.set(handle.runId, handle.sessionId);
      // Every send changes a session's busy state (and a new one appears).
      emit({ topic: 'sessions.changed' });
      void handle.done.finally(() => {
        live.delete(handle.runId);
        emit({ topic: 'sessions.changed' });
      });
      return { runId: handle.runId, sessionId: handle.sessionId };
    },
    cancel(runId) {
      const handle = live.get(runId);
      if (!handle) return false;
      handle.cancel();
      return true;
    },
    async finished(runId) {
      await live.get(runId)?.done;
    },
    liveEvents(runId) {
      const handle = live.get(runId);
      if (!handle) return [];
      return handle.events.events.map((event) =>
        event.type === 'tool.finished'
          ? ({ ...event, output: toolOutput(event.run_id, event.call_id) } as RunEventView)
          : (event as RunEventView),
      );
    },
    listRuns: (filter = {}) =>
      store
        .listRuns({ sessionId: filter.sessionId as SessionId | undefined, limit: filter.limit })
        .map((run) => runSummary(run, liveRun(run.id))),
    run(runId) {
      const row = store.getRun(runId as RunId);
      if (!row) throw new NotFound(`no run ${runId}`);
      const audit = governance.audit.list({ runId });
      const steps = db
        .prepare(
          `select id, idx, kind, started_at as startedAt, ended_at as endedAt,
             input_tokens as inputTokens, output_tokens as outputTokens, cost_usd as costUsd
           from steps where run_id = ? order by idx`,
        )
        .all(runId) as StepView[];
      return {
        run: runSummary(row, liveRun(runId)),
        steps,
        toolCalls: toolCallViews(runId, store.toolCalls(row.id), audit, liveRun(runId), tierOf),
        audit: audit.map(auditEntry),
      };
    },

    pendingApprovals: () => governance.broker.pending().map(approvalView),
    resolveApproval(id, verdict, reason) {
      // `by` reaches the model with a denial ("not approved (ui: reason)"), so the reason does too.
      return governance.broker.resolve(id, verdict, reason ? `ui: ${reason}` : 'ui');
    },

    models: modelsState,
    pullModel: (name) => downloads.start(name),
    async selectModel(name) {
      if (runtime.activeRuns > 0) throw new Error('a run is in progress: wait or cancel it first');
      const installed = await listInstalled(catalog, locations.modelsDir);
      const found = installed.find((m) => m.entry?.name === name || m.fileName === name);
      if (!found) throw new NotFound(`model "${name}" is not installed: pull it first`);
      await slot.select(found.path);
      emit({ topic: 'models.changed' });
      return modelsState();
    },
    async loadModel() {
      await slot.load();
      emit({ topic: 'models.changed' });
      return modelsState();
    },
    async unloadModel() {
      if (runtime.activeRuns > 0) throw new Error('a run is in progress: wait or cancel it first');
      await slot.unload();
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
      return { providers, routing: `chat: ${slot.label()}` };
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
      return policiesView();
    },

    settings: () => book.settings(),
    updateSettings(patch) {
      const next = book.saveSettings(patch);
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

    modelLabel: () => slot.label(),
    scrub,
    async close() {
      stopRequests();
      stopResolved();
      for (const handle of live.values()) handle.cancel();
      await Promise.allSettled([...live.values()].map((handle) => handle.done));
      listeners.clear();
      await slot.dispose();
      await parts.close();
      db.close();
    },
  };
  return assistant;
}
