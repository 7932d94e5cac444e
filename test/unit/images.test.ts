/**
 * Images attached to a message: what they are comes from their bytes, the limits are named when
 * they refuse, a text-only model is refused, and a model that takes no images reads a line of
 * text where a conversation's earlier image was.
 */
import { describe, expect, it } from 'vitest';
import { ImageError, imageBlocks } from '../../src/main/core/agent/index.js';
import { IMAGE_PLACEHOLDER, withoutImages } from '../../src/main/core/agent/model-switch.js';
import { ERROR_MAP } from '../../src/main/core/errors.js';
import {
  base64Head,
  base64Size,
  ImageInputSchema,
  imageDataUrl,
  MAX_IMAGE_BYTES,
  MAX_IMAGES,
  sniffImage,
} from '../../src/shared/images.js';
import { GIF_HEAD, JPEG_HEAD, pngOf, WEBP_HEAD } from '../fixtures/images.js';

const PNG = pngOf(2, 2, [200, 30, 30]);
const vision = { takesImages: true, label: 'lab/vision' };

describe('sniffImage', () => {
  it('knows PNG, JPEG, GIF (87a and 89a) and WebP by their signatures', () => {
    expect(sniffImage(PNG)).toBe('image/png');
    expect(sniffImage(JPEG_HEAD)).toBe('image/jpeg');
    expect(sniffImage(GIF_HEAD)).toBe('image/gif');
    expect(sniffImage(Buffer.from('GIF87a......', 'latin1'))).toBe('image/gif');
    expect(sniffImage(WEBP_HEAD)).toBe('image/webp');
  });

  it('refuses anything else, including truncated and look-alike signatures', () => {
    expect(sniffImage(PNG.subarray(0, 7))).toBeNull();
    expect(sniffImage(Buffer.from([0x89, 0x50, 0x4e, 0x47]))).toBeNull();
    expect(sniffImage(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeNull();
    expect(sniffImage(Buffer.from('RIFF\0\0\0\0WAVEfmt ', 'latin1'))).toBeNull();
    expect(sniffImage(Buffer.from('GIF90a', 'latin1'))).toBeNull();
    expect(sniffImage(Buffer.from('BM\0\0\0\0', 'latin1'))).toBeNull(); // BMP: not accepted
    expect(sniffImage(new Uint8Array())).toBeNull();
  });

  it('reads the head of base64 text exactly as Buffer decodes it', () => {
    for (const bytes of [PNG, JPEG_HEAD, GIF_HEAD, WEBP_HEAD]) {
      const data = bytes.toString('base64');
      expect([...base64Head(data, 8)]).toEqual([...bytes.subarray(0, 8)]);
      expect(base64Size(data)).toBe(bytes.length);
    }
  });

  it('builds a data: URL only from bytes that sniff as the type they claim', () => {
    const data = PNG.toString('base64');
    expect(imageDataUrl('image/png', data)).toBe(`data:image/png;base64,${data}`);
    expect(imageDataUrl('image/jpeg', data)).toBeNull();
    expect(imageDataUrl('image/svg+xml', data)).toBeNull();
    expect(imageDataUrl('image/png', Buffer.from('<script>').toString('base64'))).toBeNull();
    expect(imageDataUrl('image/png', `${data}"onerror=`)).toBeNull();
  });

  it('the contract bounds one image’s base64 and its name', () => {
    const ok = ImageInputSchema.safeParse({ name: 'a.png', data: PNG.toString('base64') });
    expect(ok.success).toBe(true);
    const big = 'A'.repeat(Math.ceil(MAX_IMAGE_BYTES / 3) * 4 + 4);
    const refused = ImageInputSchema.safeParse({ name: 'a.png', data: big });
    expect(refused.error?.issues[0]?.message).toBe(`an image is at most ${MAX_IMAGE_BYTES} bytes`);
    expect(ImageInputSchema.safeParse({ name: '../a.png', data: 'AAAA' }).success).toBe(false);
  });
});

describe('imageBlocks', () => {
  it('turns sniffed files into image blocks of their real type, base64 from the bytes', () => {
    const blocks = imageBlocks([{ name: 'looks-like.gif', bytes: PNG }], vision);
    expect(blocks).toEqual([
      { type: 'image', mediaType: 'image/png', data: PNG.toString('base64') },
    ]);
  });

  it('refuses bad magic bytes, an oversize image and too many, naming the limit', () => {
    const fail = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return error as ImageError;
      }
      throw new Error('not refused');
    };
    const fake = fail(() => imageBlocks([{ name: 'x.png', bytes: Buffer.from('hello') }], vision));
    expect(fake).toBeInstanceOf(ImageError);
    expect(fake.code).toBe('not_an_image');
    expect(fake.message).toContain('"x.png" is not a PNG, JPEG, GIF or WebP image');

    const huge = Buffer.concat([PNG, Buffer.alloc(MAX_IMAGE_BYTES)]);
    const large = fail(() => imageBlocks([{ name: 'big.png', bytes: huge }], vision));
    expect(large.code).toBe('too_large');
    expect(large.message).toContain(`at most 5 MiB (${MAX_IMAGE_BYTES} bytes)`);
    expect(ERROR_MAP[large.category].ipc).toBe('too_large');

    const five = Array.from({ length: MAX_IMAGES + 1 }, (_, i) => ({
      name: `${i}.png`,
      bytes: PNG,
    }));
    const many = fail(() => imageBlocks(five, vision));
    expect(many.code).toBe('too_many');
    expect(many.message).toBe(`at most ${MAX_IMAGES} images per message`);
  });

  it('refuses images for a model whose declaration does not say it takes them', () => {
    expect(() =>
      imageBlocks([{ name: 'a.png', bytes: PNG }], { takesImages: false, label: 'local/x.gguf' }),
    ).toThrow(/the selected model \(local\/x\.gguf\) does not take images; pick one that does/);
    // No images: nothing to refuse, whatever the model.
    expect(imageBlocks([], { takesImages: false, label: 'x' })).toEqual([]);
  });
});

describe('withoutImages', () => {
  it('gives a text-only model a line of text where each image was, tool results included', () => {
    const image = { type: 'image' as const, mediaType: 'image/png', data: PNG.toString('base64') };
    const request = {
      messages: [
        { role: 'user' as const, content: [image, { type: 'text' as const, text: 'what is it?' }] },
        {
          role: 'user' as const,
          content: [{ type: 'tool_result' as const, toolUseId: 't', content: [image] }],
        },
      ],
    };
    const seen = withoutImages(request);
    expect(JSON.stringify(seen)).not.toContain(image.data);
    expect(seen.messages[0]?.content).toEqual([
      { type: 'text', text: IMAGE_PLACEHOLDER },
      { type: 'text', text: 'what is it?' },
    ]);
    expect(JSON.stringify(seen.messages[1])).toContain(IMAGE_PLACEHOLDER);
    const plain = {
      messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'hi' }] }],
    };
    expect(withoutImages(plain)).toBe(plain);
  });
});
