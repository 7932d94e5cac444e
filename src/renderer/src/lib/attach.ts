/**
 * Reads files picked, dropped or pasted into the composer. What a file is comes from its first
 * bytes: a PNG, JPEG, GIF or WebP image becomes an image attachment (sent as base64, shown as a
 * thumbnail); anything else is taken only as UTF-8 text (a strict decoder, no NUL bytes), fenced
 * into the message by the core. A file named or typed as an image whose bytes are not one of the
 * four is refused. The core checks all of it again.
 */
import {
  type Attachment,
  type ImageInput,
  type ImageMediaType,
  MAX_ATTACHMENT_BYTES,
  MAX_ATTACHMENTS,
  MAX_ATTACHMENTS_TOTAL_BYTES,
  MAX_IMAGE_BYTES,
  MAX_IMAGE_SIZE_TEXT,
  MAX_IMAGES,
  sniffImage,
} from '../../../shared/ipc';

const KIB = 1024;

/** An attached image: its name, its sniffed type and its bytes as base64. */
export interface ImageAttachment extends ImageInput {
  mediaType: ImageMediaType;
}

export interface Attached {
  files: Attachment[];
  images: ImageAttachment[];
}

const LOOKS_LIKE_IMAGE = /\.(png|jpe?g|gif|webp|bmp|tiff?|heic|heif|avif|svg|ico)$/i;

/** The new attachments and one line per file that was refused, saying why. */
export async function addAttachments(
  current: Attached,
  picked: readonly File[],
): Promise<Attached & { refused: string[] }> {
  const files = [...current.files];
  const images = [...current.images];
  const refused: string[] = [];
  let total = files.reduce((sum, a) => sum + new TextEncoder().encode(a.text).length, 0);
  for (const file of picked) {
    const name = file.name.replace(/[\p{Cc}/\\]/gu, '_').slice(0, 255) || 'file';
    const head = new Uint8Array(await file.slice(0, 16).arrayBuffer());
    const mediaType = sniffImage(head);
    if (mediaType) {
      if (images.length >= MAX_IMAGES) {
        refused.push(`${name}: at most ${MAX_IMAGES} images per message`);
      } else if (file.size > MAX_IMAGE_BYTES) {
        refused.push(`${name}: an image is at most ${MAX_IMAGE_SIZE_TEXT}`);
      } else {
        const data = toBase64(new Uint8Array(await file.arrayBuffer()));
        images.push({ name: uniqueName(name, images), mediaType, data });
      }
    } else if (file.type.startsWith('image/') || LOOKS_LIKE_IMAGE.test(name)) {
      refused.push(`${name}: not a PNG, JPEG, GIF or WebP image (judged by its content)`);
    } else if (files.some((a) => a.name === name)) {
      refused.push(`${name}: already attached`);
    } else if (files.length >= MAX_ATTACHMENTS) {
      refused.push(`${name}: at most ${MAX_ATTACHMENTS} files per message`);
    } else if (file.size > MAX_ATTACHMENT_BYTES) {
      refused.push(`${name}: larger than ${MAX_ATTACHMENT_BYTES / KIB} KiB`);
    } else if (total + file.size > MAX_ATTACHMENTS_TOTAL_BYTES) {
      refused.push(
        `${name}: all files together must stay under ${MAX_ATTACHMENTS_TOTAL_BYTES / KIB} KiB`,
      );
    } else {
      const text = decodeText(new Uint8Array(await file.arrayBuffer()));
      if (text === null) {
        refused.push(`${name}: not a UTF-8 text file or an image`);
      } else {
        files.push({ name, text });
        total += file.size;
      }
    }
  }
  return { files, images, refused };
}

/** Pasted screenshots are all called "image.png": the second is "image (2).png". */
function uniqueName(name: string, images: readonly ImageAttachment[]): string {
  const taken = new Set(images.map((image) => image.name));
  if (!taken.has(name)) return name;
  const dot = name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  for (let n = 2; ; n++) {
    const candidate = `${stem} (${n})${ext}`;
    if (!taken.has(candidate)) return candidate;
  }
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let at = 0; at < bytes.length; at += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  }
  return btoa(binary);
}

function decodeText(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}
