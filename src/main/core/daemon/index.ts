/** `pincer daemon`: the agent without a window, one per data dir. */
export * from './a2a.js';
export * from './ckp.js';
export * from './daemon.js';
export * from './instance-lock.js';
export * from './mcp.js';
export * from './rotating-log.js';
export * from './service.js';
export * from './service-install.js';
