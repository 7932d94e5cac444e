/**
 * `models.*`: what answers chat and the local models on this computer. Owns the default model
 * (the last pick, for new conversations), downloads and GGUF imports, and the GPU probe; the
 * model switch holds the model in force, the picker the options, the catalog the fit math.
 */

import os from 'node:os';
import type { GpuMemory } from '../../../../shared/gpu-fit.js';
import type { ModelsState } from '../../../../shared/ipc-schemas.js';
import type { ModelChoice, ModelOptions } from '../../agent/index.js';
import { fitsMemory, listInstalled, probeGpuMemory, recommendedChat } from '../../local/index.js';
import { isPriced } from '../../models/index.js';
import { ModelDownloads } from '../downloads.js';
import { ModelImports } from '../model-import.js';
import { InvalidRequest, type ModelsService, NotFound } from '../types.js';
import { type AssistantParts, requireSession } from './parts.js';

export interface ModelsDeps {
  picker: ModelOptions;
  /** The choice the agent was opened with. */
  launch: ModelChoice;
  /** Whether apps beside this one use the engine now (the Local API's requests). */
  endpointBusy(): boolean;
  screenError(text: string): string;
}

export function modelsService(
  { agent, book, emit, onClose }: AssistantParts,
  { picker, launch, endpointBusy, screenError }: ModelsDeps,
): ModelsService {
  const { models, catalog, claw, runtime, locations } = agent;
  // The remembered default applies where the launch named no model; a pick here sets it anew.
  let defaultId: string | null =
    launch.kind === 'local' && !launch.modelPath ? (book.defaultModel() ?? null) : null;
  let gpuProbe: Promise<GpuMemory | null> | undefined;
  const machineRamBytes = os.totalmem();
  const recommended = recommendedChat(catalog, machineRamBytes);

  const remember = (id: string) => {
    book.setDefaultModel(id);
    defaultId = id;
  };
  /** A model that just arrived answers at once when nothing was chosen yet (the first run). */
  const adoptIfNone = async (fileName: string) => {
    if (picker.selectedId === null && runtime.activeRuns === 0) {
      await picker.select(`local:${fileName}`).catch(() => undefined);
      if (picker.selectedId) remember(picker.selectedId);
    }
    emit({ topic: 'models.changed' });
  };
  const downloads = new ModelDownloads(catalog, locations.modelsDir, {
    onProgress: (pull) => emit({ topic: 'model.pull', pull }),
    onInstalled: (fileName) => void adoptIfNone(fileName),
    screenError,
  });
  const imports = new ModelImports(locations.modelsDir);
  onClose(() => imports.close());

  /** The API name of the remote model in force, as the price list names it. */
  const remoteModel = (): string | undefined => {
    const selected = picker.selectedId ?? '';
    return selected.startsWith('provider:')
      ? claw.providers.find((p) => `provider:${p.name}` === selected)?.spec.model
      : models.label().split('/').slice(1).join('/');
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
  const state = async (): Promise<ModelsState> => {
    const installed = await listInstalled(catalog, locations.modelsDir).catch(() => []);
    const files = new Set(installed.map((m) => m.fileName));
    return {
      // The local engine and the scripted model cost nothing; a remote one only if priced.
      priced: models.kind !== 'remote' || isPriced(remoteModel()),
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
        fits: fitsMemory(entry.ramBytes, machineRamBytes),
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

  return {
    models: state,
    gpuMemory: () => {
      gpuProbe ??= probeGpuMemory();
      return gpuProbe;
    },
    pullModel: (name) => downloads.start(name),
    async selectModel(ref, sessionId) {
      if (sessionId) requireSession(book, sessionId);
      await switchTo(ref);
      const id = picker.selectedId;
      if (id) {
        // Remembered for the conversation in view and for the next new one.
        if (sessionId) book.setSessionModel(sessionId, id);
        remember(id);
      }
      emit({ topic: 'models.changed' });
      if (sessionId) emit({ topic: 'sessions.changed' });
      return state();
    },
    importModel: {
      begin: (fileName, sizeBytes) => imports.begin(fileName, sizeBytes),
      chunk: (id, offset, data) => imports.chunk(id, offset, data),
      async finish(id) {
        const { fileName, note } = await imports.finish(id);
        await adoptIfNone(fileName);
        return { fileName, ...(note ? { note } : {}), models: await state() };
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
      return state();
    },
    async unloadModel() {
      if (runtime.activeRuns > 0) throw new Error('a run is in progress: wait or cancel it first');
      if (endpointBusy())
        throw new Error('other apps are using the model through the Local API: try again shortly');
      await models.unload();
      emit({ topic: 'models.changed' });
      return state();
    },
    modelLabel: () => models.label(),
  };
}
