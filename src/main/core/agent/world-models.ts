/**
 * The manifest's WorldModels made into planners (CKP 0.3.0 §5.7): a `tool` backend runs the
 * declared simulator through the same policy and sandbox as any call (a simulator the policy
 * would not allow predicts nothing), a `provider` backend opens the named provider the first time
 * a prediction is asked, and a `custom` one says it cannot run. The policy is then wrapped so
 * those planners are asked before a call with side effects.
 */
import { type ResolvedClaw, refName } from '../ckp/index.js';
import type { ModelAccess } from '../models/index.js';
import {
  customPredictor,
  type Planner,
  providerPredictor,
  type SimulatorRun,
  toolPredictor,
} from '../planning/index.js';
import type { PolicyHook } from '../policy/index.js';
import { newId } from '../terms.js';
import type { ToolHost } from '../tools/index.js';

export interface WorldModelDeps {
  /** The policy a simulator's own call must pass. */
  policy: PolicyHook;
  /** The host that runs simulators (the manifest's tools, in the sandbox). */
  tools: ToolHost;
  /** Opens a manifest provider by name (once per agent), or undefined when it cannot. */
  provider: (name: string) => Promise<ModelAccess | undefined>;
}

export function plannersOf(claw: ResolvedClaw, deps: WorldModelDeps): Planner[] {
  const simulate: SimulatorRun = async (simulator, input, context, signal) => {
    const call = { id: newId<string>('wm'), name: simulator, input };
    const invalid = await deps.tools.validate(call);
    if (invalid) return invalid;
    const decision = await deps.policy.decide(call, {
      ...context,
      readOnly: deps.tools.isReadOnly(simulator),
    });
    if (decision.action !== 'allow')
      return {
        content: `the policy does not let its simulator "${simulator}" run (${decision.action})`,
        isError: true,
      };
    return deps.tools.execute(call, {
      signal,
      runId: context.runId,
      stepId: context.stepId,
      ...(decision.grant ? { grant: decision.grant } : {}),
    });
  };
  const opened = new Map<string, Promise<ModelAccess | undefined>>();
  const provider = (name: string) => {
    let access = opened.get(name);
    if (!access) {
      access = deps.provider(name).catch(() => undefined);
      opened.set(name, access);
    }
    return access;
  };
  return claw.worldModels.map((worldModel) => {
    const backend = { ...worldModel.spec.backend, ref: refName(worldModel.spec.backend.ref) };
    const spec = { ...worldModel.spec, backend };
    const predict =
      backend.type === 'tool'
        ? toolPredictor(worldModel.name, spec, simulate)
        : backend.type === 'provider'
          ? providerPredictor(worldModel.name, spec, () => provider(backend.ref))
          : customPredictor(worldModel.name, spec);
    return { worldModel, predict };
  });
}

/** The simulator tools the world models name: the only tools their host may run. */
export function simulatorsOf(claw: ResolvedClaw): string[] {
  return claw.worldModels
    .filter((worldModel) => worldModel.spec.backend.type === 'tool')
    .map((worldModel) => refName(worldModel.spec.backend.ref));
}
