/**
 * Swarms (CKP §5.9): one coordinator over one backend interface, `in-process` or `nats`. The
 * CKP server's `claw.swarm.delegate|report|broadcast|discover` and `pincer swarm` call in here.
 */
export {
  type Aggregate,
  aggregate,
  type Leader,
  normalizeAnswer,
  type Strategy,
} from './aggregate.js';
export { CircuitBreaker } from './breaker.js';
export {
  type RunRequest,
  SwarmCoordinator,
  type SwarmOutcome,
  type SwarmResult,
  type SwarmSettings,
  swarmSettings,
  type Topology,
} from './coordinator.js';
export { type MemberPlace, memberPlace, subLeaderWorker } from './hierarchy.js';
export { InProcessBackend } from './in-process.js';
export { agentLeader, agentWorker } from './members.js';
export { NatsBackend, type NatsSettings } from './nats.js';
export { type OpenedSwarm, openSwarm } from './open.js';
export { DEFAULT_ROUNDS, revisionPrompt } from './peers.js';
export { branchQueues, swarmQueues } from './queues.js';
export { type DelegateParams, type ReportParams, SwarmService } from './service.js';
export {
  type BackendOptions,
  DEFAULT_BACKEND_OPTIONS,
  type DeadLetter,
  type Peer,
  type ReportStatus,
  type Serving,
  type SwarmBackend,
  SwarmError,
  type SwarmErrorCode,
  type SwarmReport,
  type SwarmTask,
  type TaskHandler,
} from './types.js';
