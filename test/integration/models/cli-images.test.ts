/**
 * `pincer run --image FILE` as a user runs it: the BUILT cli in a child process against vendor
 * servers on 127.0.0.1. A model that takes images (`--takes-images`, or a manifest provider that
 * declares `capabilities: [text, image]`) receives the file's exact bytes; a text-only model, a
 * file that is not an image, a missing file, an oversize file and too many files exit 2 with the
 * reason, before any request.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_IMAGE_BYTES, MAX_IMAGES } from '../../../src/shared/images.js';
import { pngOf } from '../../fixtures/images.js';
import { startVendorServer, type VendorServer } from '../../fixtures/vendor-server.js';
import { anthropicFrames, openaiFrames } from '../../fixtures/vendor-streams.js';
import { runBuiltCli } from '../../support/cli-run.js';
import { writeClaw } from '../../support/manifest.js';

const PNG = pngOf(4, 4, [0, 200, 0]);
let dir = '';
let server: VendorServer;
let png = '';

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-cli-images-'));
  server = await startVendorServer('/v1');
  png = path.join(dir, 'leaf.png');
  await writeFile(png, PNG);
  await writeFile(path.join(dir, 'notes.png'), 'just text, named like an image');
  await writeFile(
    path.join(dir, 'big.png'),
    Buffer.concat([PNG, Buffer.alloc(MAX_IMAGE_BYTES + 1 - PNG.length)]),
  );
  await writeClaw(dir, {
    name: 'eyes',
    identity: { personality: 'Terse.' },
    providers: [
      {
        name: 'eyes',
        protocol: 'anthropic-native',
        endpoint: server.url,
        model: 'some-model',
        capabilities: ['text', 'image'],
        auth: { type: 'api-key-header', secret_ref: 'EYES_KEY' },
      },
      {
        name: 'words',
        protocol: 'anthropic-native',
        endpoint: server.url,
        model: 'claude-sonnet-4-5',
        auth: { type: 'api-key-header', secret_ref: 'EYES_KEY' },
      },
    ],
  });
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

const pincer = (...args: string[]) =>
  runBuiltCli(args, {
    env: { ...process.env, PINCER_HOME: dir, EYES_KEY: 'eyes-key-1' },
    timeoutMs: 60_000,
  });
const SERVER = () => ['--protocol', 'openai-compatible', '--endpoint', server.url, '--model', 'm'];

describe('pincer run --image', () => {
  it('sends the image to a model declared to take images, beside the text', async () => {
    server.reply({ kind: 'sse', frames: openaiFrames({ text: ['a green square'] }) });
    const result = await pincer(
      'run',
      ...SERVER(),
      '--takes-images',
      '--image',
      png,
      'What is it?',
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('a green square\n');
    const body = server.requests.at(-1)?.body as {
      messages: Array<{ role: string; content: unknown }>;
    };
    expect(body.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        {
          type: 'image_url',
          image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` },
        },
        { type: 'text', text: 'What is it?' },
      ],
    });
  });

  it('a manifest provider takes images when it declares the image modality', async () => {
    server.reply({ kind: 'sse', frames: anthropicFrames({ text: ['green'] }) });
    const manifest = path.join(dir, 'claw.yaml');
    const ok = await pincer(
      'run',
      '--manifest',
      manifest,
      '--provider',
      'eyes',
      '--image',
      png,
      'Colour?',
    );
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    const body = server.requests.at(-1)?.body as { messages: Array<{ content: unknown[] }> };
    expect(body.messages.at(-1)?.content[0]).toEqual({
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: PNG.toString('base64') },
    });

    // No declaration means text only (CKP's default), whatever the catalog knows of the model.
    const before = server.requests.length;
    const refused = await pincer(
      'run',
      '--manifest',
      manifest,
      '--provider',
      'words',
      '--image',
      png,
      'Colour?',
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('the selected model (words) does not take images');
    expect(server.requests.length).toBe(before);
  });

  it('exits 2 with the reason before any request', async () => {
    const before = server.requests.length;
    const textOnly = await pincer('run', ...SERVER(), '--image', png, 'What is it?');
    expect(textOnly.code).toBe(2);
    expect(textOnly.stderr).toContain(
      'pincer run: the selected model (openai-compatible/m) does not take images; pick one that does',
    );
    expect(textOnly.stderr).toContain('--takes-images');

    const notImage = await pincer(
      'run',
      ...SERVER(),
      '--takes-images',
      '--image',
      path.join(dir, 'notes.png'),
      'x',
    );
    expect(notImage.code).toBe(2);
    expect(notImage.stderr).toContain('"notes.png" is not a PNG, JPEG, GIF or WebP image');

    const missing = await pincer(
      'run',
      ...SERVER(),
      '--takes-images',
      '--image',
      path.join(dir, 'nope.png'),
      'x',
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nope.png: no such file');

    const big = await pincer(
      'run',
      ...SERVER(),
      '--takes-images',
      '--image',
      path.join(dir, 'big.png'),
      'x',
    );
    expect(big.code).toBe(2);
    expect(big.stderr).toContain(`an image is at most 5 MiB (${MAX_IMAGE_BYTES} bytes)`);

    const many = Array.from({ length: MAX_IMAGES + 1 }, () => ['--image', png]).flat();
    const tooMany = await pincer('run', ...SERVER(), '--takes-images', ...many, 'x');
    expect(tooMany.code).toBe(2);
    expect(tooMany.stderr).toContain(`at most ${MAX_IMAGES} images per message`);
    expect(server.requests.length).toBe(before);
  });
});
