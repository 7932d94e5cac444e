/**
 * Reads files picked, dropped or pasted into the composer as text attachments. Only UTF-8 text is
 * taken (a strict decoder, no NUL bytes); images are refused by name because a message carries
 * text only for now (a run's user turn is one text; see README).
 */
import {
  type Attachment,
  MAX_ATTACHMENT_BYTES,
  MAX_ATTACHMENTS,
  MAX_ATTACHMENTS_TOTAL_BYTES,
} from '../../../shared/attachments';

const KIB = 1024;

/** The new list of attachments and one line per file that was refused, saying why. */
export async function addAttachments(
  current: readonly Attachment[],
  files: readonly File[],
): Promise<{ attachments: Attachment[]; refused: string[] }> {
  const attachments = [...current];
  const refused: string[] = [];
  let total = attachments.reduce((sum, a) => sum + new TextEncoder().encode(a.text).length, 0);
  for (const file of files) {
    const name = file.name.replace(/[\p{Cc}/\\]/gu, '_').slice(0, 255) || 'file';
    if (attachments.some((a) => a.name === name)) {
      refused.push(`${name}: already attached`);
    } else if (file.type.startsWith('image/')) {
      refused.push(`${name}: images cannot be attached yet (a message carries text only)`);
    } else if (attachments.length >= MAX_ATTACHMENTS) {
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
        refused.push(`${name}: not a UTF-8 text file`);
      } else {
        attachments.push({ name, text });
        total += file.size;
      }
    }
  }
  return { attachments, refused };
}

function decodeText(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}
