/** `pincer daemon`: the agent without a window, one per data dir. */
export type { DaemonA2aOptions } from './a2a.js';
export { ckpTokenFileOf, type DaemonCkpOptions, storedCkpToken } from './ckp.js';
export { type DaemonStatus, startDaemon, statusFileOf } from './daemon.js';
export { acquireInstanceLock, InstanceLockedError, lockHolder } from './instance-lock.js';
export type { DaemonMcpOptions } from './mcp.js';

export { planService, ServiceError, type ServicePlan, type ServicePlatform } from './service.js';
export { installService, spawnRunner, uninstallService } from './service-install.js';
