/**
 * Issue 24, "the packaged renderer is not on file://": the built renderer is served from
 * app://pincer/ (test/unit/desktop/renderer-files.test.ts covers the scheme). The gateway
 * serves the same folder over loopback HTTP through the same resolver; before, it followed a
 * symbolic link in that folder to any file on the machine.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Gateway, startAssistantGateway } from '../../../src/main/core/gateway/server.js';
import { type AssistantFixture, scriptedAssistant } from '../../support/assistant-harness.js';

let gateway: Gateway;
let fixture: AssistantFixture;
let root = '';

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'pincer-sec-renderer-'));
  const rendererDir = path.join(root, 'renderer');
  await mkdir(path.join(root, 'outside'), { recursive: true });
  await mkdir(rendererDir);
  await writeFile(path.join(rendererDir, 'index.html'), '<!doctype html><title>ui</title>');
  await writeFile(path.join(root, 'outside', 'id_rsa'), 'PRIVATE KEY');
  await symlink(path.join(root, 'outside', 'id_rsa'), path.join(rendererDir, 'key.txt'));
  await symlink(path.join(root, 'outside'), path.join(rendererDir, 'assets'));
  fixture = await scriptedAssistant({ delayMs: 1 });
  gateway = await startAssistantGateway({
    assistant: fixture.assistant,
    rendererDir,
    token: 'test-token-123',
  });
});
afterAll(async () => {
  await gateway?.close();
  await fixture?.close();
  await rm(root, { recursive: true, force: true });
});

describe("the renderer folder's links lead nowhere", () => {
  it('the gateway answers 404 for a link to a file or a folder outside the renderer', async () => {
    for (const probe of ['/key.txt', '/assets/id_rsa']) {
      const response = await fetch(`${gateway.origin}${probe}`);
      expect(response.status, probe).toBe(404);
      expect(await response.text(), probe).not.toContain('PRIVATE KEY');
    }
    expect((await fetch(`${gateway.origin}/`)).status).toBe(200);
  });
});
