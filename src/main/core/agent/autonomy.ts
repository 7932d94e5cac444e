/**
 * The autonomy level as a policy hook the UI can switch: the manifest's engine for its own level,
 * and an engine over the same rules for each other level, built on first use. The manifest keeps
 * its level; the app's assistant remembers the user's switch across restarts.
 */
import type { Autonomy } from '../../../shared/ipc-schemas.js';
import type { PolicyHook } from '../policy/index.js';

export class AutonomySwitch implements PolicyHook {
  private current: Autonomy;
  private readonly engines = new Map<Autonomy, PolicyHook>();

  constructor(
    readonly manifestLevel: Autonomy,
    manifestEngine: PolicyHook,
    private readonly engineFor: (level: Autonomy) => PolicyHook,
  ) {
    this.current = manifestLevel;
    this.engines.set(manifestLevel, manifestEngine);
  }

  get level(): Autonomy {
    return this.current;
  }

  set(level: Autonomy): void {
    this.current = level;
  }

  decide: PolicyHook['decide'] = (call, context) => {
    let engine = this.engines.get(this.current);
    if (!engine) {
      engine = this.engineFor(this.current);
      this.engines.set(this.current, engine);
    }
    return engine.decide(call, context);
  };
}
