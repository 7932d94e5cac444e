/**
 * Images a person attached to a message, checked in the main process whatever the surface
 * checked before (the renderer's composer, the CLI's `--image`): at most MAX_IMAGES, each at most
 * MAX_IMAGE_BYTES, each a PNG, JPEG, GIF or WebP by its first bytes (a name or a declared type
 * proves nothing), and only for a model whose declaration says it takes images. What passes
 * becomes image blocks of the user's turn, their base64 written afresh from the checked bytes.
 */
import {
  MAX_IMAGE_BYTES,
  MAX_IMAGE_SIZE_TEXT,
  MAX_IMAGES,
  sniffImage,
} from '../../../shared/images.js';
import type { ImageBlock } from '../../../shared/messages.js';
import { type ErrorCategory, PincerError } from '../errors.js';

export type ImageErrorCode = 'too_many' | 'too_large' | 'not_an_image' | 'text_only_model';

const CATEGORY: Record<ImageErrorCode, ErrorCategory> = {
  too_many: 'too_large',
  too_large: 'too_large',
  not_an_image: 'invalid_request',
  text_only_model: 'unsupported',
};

/** An image that cannot go with the message, or a model that cannot read it. */
export class ImageError extends PincerError {
  constructor(
    readonly code: ImageErrorCode,
    message: string,
  ) {
    super(CATEGORY[code], message);
    this.name = 'ImageError';
  }
}

/** An attached image: the name people know it by and its bytes. */
export interface ImageFile {
  name: string;
  bytes: Uint8Array;
}

/** The image blocks of these files, or the first reason they cannot be sent to this model. */
export function imageBlocks(
  files: readonly ImageFile[],
  model: { takesImages: boolean; label: string },
): ImageBlock[] {
  if (files.length === 0) return [];
  if (files.length > MAX_IMAGES)
    throw new ImageError('too_many', `at most ${MAX_IMAGES} images per message`);
  const blocks = files.map(({ name, bytes }): ImageBlock => {
    if (bytes.length > MAX_IMAGE_BYTES) {
      throw new ImageError(
        'too_large',
        `image "${name}" is ${bytes.length} bytes; an image is at most ${MAX_IMAGE_SIZE_TEXT} (${MAX_IMAGE_BYTES} bytes)`,
      );
    }
    const mediaType = sniffImage(bytes);
    if (!mediaType) {
      throw new ImageError(
        'not_an_image',
        `"${name}" is not a PNG, JPEG, GIF or WebP image (judged by its content, not its name)`,
      );
    }
    return { type: 'image', mediaType, data: Buffer.from(bytes).toString('base64') };
  });
  if (!model.takesImages) {
    throw new ImageError(
      'text_only_model',
      `the selected model (${model.label}) does not take images; pick one that does, or send the message without them`,
    );
  }
  return blocks;
}

/** Files given as base64 (the IPC contract's form), decoded for `imageBlocks`. */
export function decodeImages(inputs: ReadonlyArray<{ name: string; data: string }>): ImageFile[] {
  return inputs.map(({ name, data }) => ({ name, bytes: Buffer.from(data, 'base64') }));
}
