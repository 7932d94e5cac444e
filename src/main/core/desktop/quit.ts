/**
 * Graceful quit. Electron's `before-quit` is synchronous, so the first quit request is held
 * (preventDefault), runs are drained, cleanup runs, and quit is asked again; that second request
 * proceeds. Lifecycle names follow CKP (READY -> STOPPING -> STOPPED).
 */
import type { AgentActivity, DrainReport } from './activity.js';

export type ShellLifecycle = 'READY' | 'STOPPING' | 'STOPPED';

/** How long runs may take to finish on quit before they are cancelled. */
export const DEFAULT_DRAIN_TIMEOUT_MS = 10_000;

export interface QuitDeps {
  activity: AgentActivity;
  /** Asks the app to quit again once draining is over (app.quit). */
  quit: () => void;
  /** Closing stores, unregistering shortcuts...; errors are reported, never block the quit. */
  cleanup?: () => Promise<void> | void;
  onReport?: (report: DrainReport) => void;
  onError?: (error: unknown) => void;
  drainTimeoutMs?: number;
}

export class QuitCoordinator {
  private stateValue: ShellLifecycle = 'READY';

  constructor(private readonly deps: QuitDeps) {}

  get state(): ShellLifecycle {
    return this.stateValue;
  }

  /** True once quitting began: windows closing now really close instead of hiding. */
  get quitting(): boolean {
    return this.stateValue !== 'READY';
  }

  /** For `before-quit`: 'hold' means call event.preventDefault(); the quit resumes by itself. */
  beforeQuit(): 'proceed' | 'hold' {
    if (this.stateValue === 'STOPPED') return 'proceed';
    if (this.stateValue === 'STOPPING') return 'hold';
    this.stateValue = 'STOPPING';
    void this.stop();
    return 'hold';
  }

  private async stop(): Promise<void> {
    try {
      const report = await this.deps.activity.drain(
        this.deps.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS,
      );
      this.deps.onReport?.(report);
      await this.deps.cleanup?.();
    } catch (error) {
      this.deps.onError?.(error);
    } finally {
      this.stateValue = 'STOPPED';
      this.deps.quit();
    }
  }
}
