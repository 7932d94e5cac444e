/**
 * The compact tool-call language (seed 000) vs Qwen's native JSON tool calls:
 *  1. tokens for the same 20 representative calls, counted with the tokenizer of the
 *     Qwen2.5-0.5B-shaped fixture (its 151,936-token byte-level BPE vocabulary; the weights are
 *     shrunk, only the vocabulary is loaded), `<tool_call>` counted as the special token it is;
 *  2. parse speed of parseToolCall vs JSON.parse of the equivalent JSON, same process.
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getLlama } from 'node-llama-cpp';
import { parseToolCall } from '../src/main/core/toolcall/parser.js';
import { formatToolCall } from '../src/main/core/toolcall/print.js';
import {
  formatNativeToolCall,
  fromNativeCalls,
  type NativeToolCall,
} from '../src/main/core/toolcall/to-json.js';
import { QWEN25_05B_SHAPE, writeTinyGguf } from '../test/fixtures/tiny-gguf.js';
import { measure, report } from './lib.js';

/** Twenty calls of the built-in tools, as a model would make them. */
const CALLS: NativeToolCall[] = [
  { name: 'fs/read', arguments: { path: 'src/main/index.ts' } },
  { name: 'fs/read', arguments: { path: '/home/user/notes/todo.md', offset: 120, limit: 40 } },
  { name: 'fs/list', arguments: { path: '.', recursive: true } },
  { name: 'fs/list', arguments: { path: 'src/main/core', depth: 2 } },
  { name: 'fs/search', arguments: { pattern: 'TODO', path: 'src', maxResults: 50 } },
  {
    name: 'fs/search',
    arguments: { pattern: 'export function \\w+', path: '.', glob: '*.ts', ignoreCase: false },
  },
  {
    name: 'fs/write',
    arguments: { path: 'out/report.txt', content: 'Build passed: 42 tests, 0 failures.\n' },
  },
  {
    name: 'fs/write',
    arguments: {
      path: 'notes.md',
      content: '# Notes\n- call the bank\n- renew passport',
      append: true,
    },
  },
  {
    name: 'fs/edit',
    arguments: {
      path: 'package.json',
      oldText: '"version": "0.1.0"',
      newText: '"version": "0.2.0"',
    },
  },
  {
    name: 'fs/edit',
    arguments: { path: 'src/app.ts', oldText: 'const port = 3000;', newText: 'const port = 8080;' },
  },
  { name: 'sys/exec', arguments: { command: 'git', args: ['status', '--short'] } },
  {
    name: 'sys/exec',
    arguments: {
      command: 'npm',
      args: ['test', '--', '--run'],
      cwd: '/work/app',
      timeoutMs: 60000,
    },
  },
  { name: 'sys/exec', arguments: { command: 'ls', args: ['-la'], cwd: '/tmp' } },
  { name: 'net/fetch', arguments: { url: 'https://example.com/api/v1/items?limit=10' } },
  { name: 'net/fetch', arguments: { url: 'https://news.ycombinator.com/', maxBytes: 200000 } },
  { name: 'memory/search', arguments: { query: 'what did I decide about the flat lease?', k: 5 } },
  { name: 'memory/search', arguments: { query: 'dentist appointment', k: 3, hybrid: true } },
  { name: 'data/transform', arguments: { operation: 'parse_json', strict: true } },
  { name: 'ui/notify', arguments: { title: 'Done', body: 'The backup finished.', urgency: 'low' } },
  {
    name: 'code/run',
    arguments: { language: 'python', source: 'print(sum(range(10)))', timeoutMs: 5000 },
  },
];

export async function run(): Promise<void> {
  const native = CALLS.map(formatNativeToolCall);
  const nativeJson = CALLS.map((call) => JSON.stringify(call));
  const compact = CALLS.map((call) => formatToolCall(fromNativeCalls([call])));

  // The Qwen2.5-0.5B-shaped vocabulary with one small layer: the tokenizer is identical.
  const file = path.join(os.tmpdir(), 'pincer-bench-qwen-vocab-small.gguf');
  if (!existsSync(file)) {
    await writeTinyGguf(file, {
      ...QWEN25_05B_SHAPE,
      embedding: 64,
      layers: 1,
      heads: 2,
      kvHeads: 2,
      feedForward: 64,
      name: 'pincer-qwen2.5-vocab-small',
    });
  }
  const llama = await getLlama({ gpu: false, build: 'never', progressLogs: false });
  const model = await llama.loadModel({ modelPath: file, vocabOnly: true });
  const count = (texts: string[]) => texts.reduce((n, t) => n + model.tokenize(t, true).length, 0);
  const nativeTokens = count(native);
  const compactTokens = count(compact);
  const chars = (texts: string[]) => texts.reduce((n, t) => n + t.length, 0);

  console.log('\ntool-call language: 20 representative calls, Qwen2.5-shaped BPE tokenizer');
  console.log(`  example native : ${native[1]}`);
  console.log(`  example compact: ${compact[1]}`);
  console.log(
    `  native JSON <tool_call>     ${String(nativeTokens).padStart(5)} tokens  ${chars(native)} chars (baseline)`,
  );
  console.log(
    `  compact language            ${String(compactTokens).padStart(5)} tokens  ${chars(compact)} chars` +
      `  ratio ${(compactTokens / nativeTokens).toFixed(2)}x (${((1 - compactTokens / nativeTokens) * 100).toFixed(0)}% fewer)`,
  );
  await model.dispose();

  // Parse: all 20 per op; both produce a structure from text.
  let sink = 0;
  const results = await measure(
    [
      {
        name: 'JSON.parse (native JSON, 20 calls)',
        fn: () => {
          for (const text of nativeJson) sink += (JSON.parse(text) as NativeToolCall).name.length;
        },
      },
      {
        name: 'parseToolCall (compact, 20 calls)',
        fn: () => {
          for (const text of compact) sink += parseToolCall(text).span.end.offset;
        },
      },
    ],
    { samples: 15, iterations: 500 },
  );
  report('parse speed (median per 20 calls)', results);
  if (sink < 0) console.log(sink);
}
