/**
 * Attached text files become part of the user's message, each fenced and named (fenceFile): a
 * file cannot close its fence and continue as the user's own words.
 */
import {
  type Attachment,
  fenceFile,
  MAX_ATTACHMENT_BYTES,
  MAX_ATTACHMENTS_TOTAL_BYTES,
} from '../../../shared/attachments.js';
import { InvalidRequest } from './types.js';

export function messageWithAttachments(text: string, attachments: readonly Attachment[]): string {
  if (attachments.length === 0) return text;
  let total = 0;
  const blocks = attachments.map(({ name, text: content }) => {
    const bytes = Buffer.byteLength(content, 'utf8');
    if (bytes > MAX_ATTACHMENT_BYTES)
      throw new InvalidRequest(`attachment "${name}" is larger than ${MAX_ATTACHMENT_BYTES} bytes`);
    total += bytes;
    return fenceFile(name, content);
  });
  if (total > MAX_ATTACHMENTS_TOTAL_BYTES)
    throw new InvalidRequest(`attachments total more than ${MAX_ATTACHMENTS_TOTAL_BYTES} bytes`);
  return `${text}\n\n${blocks.join('\n\n')}`;
}
