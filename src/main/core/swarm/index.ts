/**
 * Swarms (CKP §5.9): one coordinator over one backend interface, `in-process` or `nats`. The
 * CKP server's `claw.swarm.delegate|report|broadcast|discover` and `pincer swarm` call in here.
 */

export { SwarmCoordinator } from './coordinator.js';
export { memberPlace, subLeaderWorker } from './hierarchy.js';

export { agentLeader, agentWorker } from './members.js';

export { openSwarm } from './open.js';

export { swarmQueues } from './queues.js';
export { SwarmService } from './service.js';
export {
  type DeadLetter,
  type Peer,
  type SwarmBackend,
  SwarmError,
  type SwarmReport,
} from './types.js';
