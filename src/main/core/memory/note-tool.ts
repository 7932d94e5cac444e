/** memory/note: the agent appends to today's daily thread, the raw material of seed 002's propagation. */

import path from 'node:path';
import { type Tool, ToolError } from '../tools/index.js';
import { confine, shown } from '../workspace-fs/index.js';
import { DAILY_DIR } from './threads.js';

export const memoryNote: Tool = {
  name: 'memory/note',
  description:
    "Write something worth remembering to today's daily thread (threads/daily/YYYY-MM-DD.md). Later sessions can find it.",
  inputSchema: {
    type: 'object',
    properties: { text: { type: 'string', minLength: 1, maxLength: 4000 } },
    required: ['text'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  category: 'memory',
  tier: 'safe',
  // Appends through the memory the host holds open (context.memory), confined there.
  runsOn: 'host',
  // What the approval shows: the call's arguments say only what, not where.
  // biome-ignore lint/suspicious/noTemplateCurlyInString: expanded by the policy
  writes: [path.join(DAILY_DIR, '${today}.md')],
  timeoutMs: 30_000,
  maxOutputBytes: 4 * 1024,
  source: 'builtin',
  async run(input, context) {
    if (!context.memory) throw new ToolError('memory is not available in this session');
    const root = await confine(context.workspace, '.');
    const file = await context.memory.note(root, input.text as string);
    return { content: `noted in ${shown(root, file)}` };
  },
};
