/** Channels: the surfaces through which people and schedules reach the one agent. */
export * from './access.js';
export * from './clock.js';
export * from './cron.js';
export * from './from-manifest.js';
export * from './hub.js';
export * from './limits.js';
export * from './queue.js';
export * from './records.js';
export * from './split-message.js';
export * from './telegram.js';
export * from './trigger-gate.js';
export * from './types.js';
export * from './webhook.js';
