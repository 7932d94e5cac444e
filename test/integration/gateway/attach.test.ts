/**
 * The attach point the desktop app serves over its assistant (the daemon's is tested as a real
 * process in channels/daemon-attach.test.ts): gateway.json names it, the token in that file is
 * welcomed and the typed contract answers, and closing removes only its own file.
 */
import { existsSync } from 'node:fs';
import { AgentActivity, admittingAssistant } from '../../../src/main/core/desktop/index.js';
import { connectGateway } from '../../../src/main/core/gateway/client.js';
import { gatewayFilePath } from '../../../src/main/core/gateway/gateway-file.js';
import {
  readGatewayFile,
  serveAttachPoint,
  writeGatewayFile,
} from '../../../src/main/core/gateway/index.js';
import { expect, it } from '../../support/fixtures.js';

it('names itself in gateway.json, answers the token in it, and removes the file on close', async ({
  assistant: fixture,
}) => {
  const { dataDir } = fixture;
  const point = await serveAttachPoint({
    assistant: admittingAssistant(fixture.assistant, new AgentActivity()),
    dataDir,
    rendererDir: `${dataDir}/no-renderer`,
  });
  const entry = readGatewayFile(dataDir);
  expect(entry).toEqual({ pid: process.pid, port: point.gateway.port, token: point.gateway.token });
  const link = await connectGateway(`ws://127.0.0.1:${entry?.port}/ipc`, entry?.token ?? '');
  try {
    const created = await link.invoke('sessions.create', { title: 'attached' });
    expect((await fixture.assistant.listSessions()).map((s) => s.id)).toContain(created.id);
  } finally {
    link.close();
  }
  await point.close();
  expect(existsSync(gatewayFilePath(dataDir))).toBe(false);
  await expect(
    connectGateway(`ws://127.0.0.1:${point.gateway.port}/ipc`, point.gateway.token, 2000),
  ).rejects.toThrow();
});

it('leaves a newer gateway’s file in place when it closes', async ({ assistant: fixture }) => {
  const { dataDir } = fixture;
  const point = await serveAttachPoint({
    assistant: fixture.assistant,
    dataDir,
    rendererDir: `${dataDir}/no-renderer`,
  });
  // Another live process took the name since (pid 1 stands in for it: alive, not ours).
  writeGatewayFile(dataDir, { pid: 1, port: 1, token: 'newer' });
  await point.close();
  expect(readGatewayFile(dataDir, () => true)?.token).toBe('newer');
});
