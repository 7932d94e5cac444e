/**
 * Model downloads started from the UI: one at a time per model, progress published at most ten
 * times a second (a browser needs no more), and the outcome kept so a page opened later still
 * sees it. Errors are screened (local paths, secrets) before they leave.
 */
import type { PullState } from '../../../shared/ipc-schemas.js';
import type { ModelCatalog } from '../local/index.js';
import { pullModel } from '../local/index.js';
import { NotFound } from './types.js';

export interface DownloadListeners {
  onProgress(pull: PullState): void;
  onInstalled(fileName: string): void;
  /** An error as people may read it (no local paths, no secrets). */
  screenError(text: string): string;
}

const PROGRESS_EVERY_MS = 100;

export class ModelDownloads {
  private readonly pulls = new Map<string, PullState>();

  constructor(
    private readonly catalog: ModelCatalog,
    private readonly modelsDir: string,
    private readonly listeners: DownloadListeners,
  ) {}

  state(name: string): PullState | null {
    return this.pulls.get(name) ?? null;
  }

  /** Starts a download in the background; false when that model is already downloading. */
  start(name: string): { started: boolean } {
    const entry = this.catalog.models.find((m) => m.name === name);
    if (!entry) throw new NotFound(`the catalog has no model "${name}"`);
    if (this.pulls.get(name)?.state === 'running') return { started: false };
    const state: PullState = {
      name,
      state: 'running',
      downloadedBytes: 0,
      totalBytes: entry.sizeBytes,
      error: null,
    };
    const publish = (next: Partial<PullState>) => {
      Object.assign(state, next);
      this.pulls.set(name, { ...state });
      this.listeners.onProgress({ ...state });
    };
    publish({});
    let lastSent = 0;
    void pullModel(entry, this.modelsDir, {
      onProgress: ({ downloadedBytes, totalBytes }) => {
        const now = Date.now();
        if (now - lastSent < PROGRESS_EVERY_MS) return;
        lastSent = now;
        publish({ downloadedBytes, totalBytes: totalBytes || state.totalBytes });
      },
    }).then(
      (result) => {
        publish({ state: 'done', downloadedBytes: result.bytes, totalBytes: result.bytes });
        this.listeners.onInstalled(entry.fileName);
      },
      (error: unknown) =>
        publish({
          state: 'failed',
          error: this.listeners.screenError(error instanceof Error ? error.message : String(error)),
        }),
    );
    return { started: true };
  }
}
