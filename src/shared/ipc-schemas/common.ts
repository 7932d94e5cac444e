/** Ids, timestamps and the app's own info: what every namespace's shapes build on. */
import { z } from 'zod';

/** Ids minted by the core (`ses_...`, `run_...`) or chosen on the CLI (`--session NAME`). */
export const IdSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9_.:-]+$/, 'not an id');

export const Json = z.unknown();
export const Iso = z.string().max(40);

export const AppInfoSchema = z.object({
  name: z.string(),
  version: z.string(),
  platform: z.string(),
  arch: z.string(),
  node: z.string(),
  /** Electron version when served by the desktop shell, null in the headless gateway. */
  electron: z.string().nullable(),
  /** Which transport carries this UI. */
  transport: z.enum(['electron', 'gateway']),
  /** The OS confinement the tools run under (chosen at start-up by probing). */
  sandbox: z.enum(['bwrap', 'seatbelt', 'process']),
});
export type AppInfo = z.infer<typeof AppInfoSchema>;
