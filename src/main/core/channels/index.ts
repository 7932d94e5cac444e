/** Channels: the surfaces through which people and schedules reach the one agent. */

export { type ChannelSet, type LiveChannels, liveChannels, openChannels } from './from-manifest.js';
export { ChannelHub, type HeldWork } from './hub.js';

export { ChannelRecords } from './records.js';

export type { ChannelStatus } from './types.js';
