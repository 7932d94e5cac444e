/**
 * How a terminal finds the gateway already serving this data directory, so `pincer tui` attaches
 * to it instead of opening a second agent on the same profile. Whoever serves it (`pincer
 * gateway`, the daemon, the desktop app) writes `gateway.json` (port, token, pid; readable by
 * this user only, like the profile database it guards) and removes it when it stops; a file left
 * by a process that is gone is ignored.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

const GatewayFileSchema = z.object({
  pid: z.number().int().positive(),
  port: z.number().int().min(1).max(65535),
  token: z.string().min(1).max(256),
});
export type GatewayFile = z.infer<typeof GatewayFileSchema>;

export const gatewayFilePath = (dataDir: string) => path.join(dataDir, 'gateway.json');

export function writeGatewayFile(dataDir: string, entry: GatewayFile): () => void {
  const file = gatewayFilePath(dataDir);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(entry), { mode: 0o600 });
  renameSync(temp, file);
  return () => {
    // Only our own entry: a newer gateway may have replaced it.
    if (readGatewayFile(dataDir, () => true)?.pid === entry.pid) rmSync(file, { force: true });
  };
}

/** The running gateway's entry, or undefined (none, unreadable, or its process is gone). */
export function readGatewayFile(
  dataDir: string,
  isAlive: (pid: number) => boolean = processAlive,
): GatewayFile | undefined {
  let raw: string;
  try {
    raw = readFileSync(gatewayFilePath(dataDir), 'utf8');
  } catch {
    return undefined;
  }
  let parsed: ReturnType<typeof GatewayFileSchema.safeParse>;
  try {
    parsed = GatewayFileSchema.safeParse(JSON.parse(raw));
  } catch {
    return undefined;
  }
  return parsed.success && isAlive(parsed.data.pid) ? parsed.data : undefined;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    // ESRCH: gone. EPERM: another user's process, so not this user's gateway either.
    return false;
  }
}
