/**
 * Images attached to a message. What an image is comes from its first bytes (PNG, JPEG, GIF and
 * WebP signatures), never from its name or a MIME type someone declared. The limits bound one
 * send: at most MAX_IMAGES images of at most MAX_IMAGE_BYTES each, which the IPC request bound of
 * `chat.send` (MAX_SEND_REQUEST_BYTES in ipc.ts) is sized from. Pure module: the renderer, the
 * core and the CLI check the same way.
 */
import { z } from 'zod';

export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

export const MAX_IMAGES = 4;
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** The longest base64 text of one image within MAX_IMAGE_BYTES. */
export const MAX_IMAGE_BASE64 = Math.ceil(MAX_IMAGE_BYTES / 3) * 4;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** An image as a send carries it: a display name and its bytes as base64 (sniffed by the core). */
export const ImageInputSchema = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(255)
    .regex(/^[^\p{Cc}/\\]+$/u, 'a file name without folders or control characters'),
  data: z
    .string()
    .min(4)
    .max(MAX_IMAGE_BASE64, `an image is at most ${MAX_IMAGE_BYTES} bytes`)
    .regex(BASE64, 'base64'),
});
export type ImageInput = z.infer<typeof ImageInputSchema>;

const startsWith = (bytes: Uint8Array, prefix: readonly number[], at = 0) =>
  bytes.length >= at + prefix.length && prefix.every((byte, i) => bytes[at + i] === byte);
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

/** The image type these bytes start with, or null when they are none of the four. */
export function sniffImage(bytes: Uint8Array): ImageMediaType | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'))) return 'image/gif';
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return 'image/webp';
  return null;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** The first bytes of base64 text (enough to sniff), decoded without Buffer or atob. */
export function base64Head(data: string, bytes = 16): Uint8Array {
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of data.slice(0, Math.ceil(bytes / 3) * 4)) {
    const index = ALPHABET.indexOf(char);
    if (index < 0) break;
    value = (value << 6) | index;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push((value >> bits) & 0xff);
    }
  }
  return new Uint8Array(out.slice(0, bytes));
}

/** How many bytes base64 text decodes to. */
export function base64Size(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.floor((data.length * 3) / 4) - padding;
}

/** A data: URL for an image whose bytes were sniffed as `mediaType`; null for anything else. */
export function imageDataUrl(mediaType: string, data: string): string | null {
  if (!BASE64.test(data) || data.length % 4 !== 0) return null;
  const sniffed = sniffImage(base64Head(data));
  return sniffed !== null && sniffed === mediaType ? `data:${sniffed};base64,${data}` : null;
}

/** The limit of one image, as people read it ("5 MiB"). */
export const MAX_IMAGE_SIZE_TEXT = `${MAX_IMAGE_BYTES / (1024 * 1024)} MiB`;
