/** The background assistant: held work, channels as served, pairing codes. */
import { z } from 'zod';
import { Iso } from './common.js';

/** One channel message or schedule firing held while the agent is paused (the tray). */
export const HeldWorkViewSchema = z.object({
  channel: z.string(),
  /** The sender's platform id, or the schedule. */
  from: z.string(),
  preview: z.string(),
  since: Iso,
});
export type HeldWorkView = z.infer<typeof HeldWorkViewSchema>;

/** The background assistant's pause and what it holds; `served` is false when this app serves no channels. */
export const BackgroundViewSchema = z.object({
  served: z.boolean(),
  paused: z.boolean(),
  held: z.array(HeldWorkViewSchema),
});
export type BackgroundView = z.infer<typeof BackgroundViewSchema>;

/** One channel the manifest declares, as this app serves it. */
export const ChannelViewSchema = z.object({
  name: z.string(),
  type: z.string(),
  /** `not-served`: declared, but this app does not serve it (a daemon does, or the type is not built). */
  state: z.enum(['running', 'stopped', 'error', 'not-served']),
  lastMessageAt: Iso.nullable(),
  lastError: z.string().nullable(),
  runs: z.number().int(),
  /** Where it listens, its next firing, why it is not served ... (shown as is). */
  detail: z.record(z.string(), z.string()),
});
export type ChannelView = z.infer<typeof ChannelViewSchema>;

/** A pairing code an unknown sender received and that waits for the owner. */
export const PairingViewSchema = z.object({
  channel: z.string(),
  userId: z.string(),
  code: z.string(),
  expiresAt: Iso,
});
export type PairingView = z.infer<typeof PairingViewSchema>;

export const ChannelsViewSchema = z.object({
  served: z.boolean(),
  channels: z.array(ChannelViewSchema),
  pairings: z.array(PairingViewSchema),
});
export type ChannelsView = z.infer<typeof ChannelsViewSchema>;
