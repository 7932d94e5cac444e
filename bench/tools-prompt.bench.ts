/**
 * Prompt tokens of the default tool set on the local model: Qwen's own rendering (each tool's
 * JSON schema, the baseline) vs the compact signatures the engine uses (chat-format.ts), both
 * counted with the Qwen2.5-0.5B-shaped fixture's 151,936-token BPE tokenizer, for the tool text
 * alone and for the whole fixed prefix (default instructions + tools) as the chat format writes
 * it. The schemas are those the agent sends the local model (narrowed for its grammar).
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ChatModelFunctions, getLlama, QwenChatWrapper } from 'node-llama-cpp';
import { DEFAULT_SYSTEM, DEFAULT_TOOLS } from '../src/main/core/agent/agent.js';
import { CompactToolsQwenChatWrapper } from '../src/main/core/local/chat-format.js';
import { grammarToolDefs } from '../src/main/core/local/grammar.js';
import { memoryNote } from '../src/main/core/memory/note-tool.js';
import { toWireNames } from '../src/main/core/models/tool-names.js';
import { BUILTIN_TOOLS } from '../src/main/core/tools/builtins/index.js';
import { ToolRegistry } from '../src/main/core/tools/registry.js';
import { QWEN25_05B_SHAPE, writeTinyGguf } from '../test/fixtures/tiny-gguf.js';

/** The goal for the default tools on the local model. */
const GOAL_TOKENS = 1200;

export async function run(): Promise<void> {
  const registry = new ToolRegistry();
  for (const tool of BUILTIN_TOOLS) registry.register(tool);
  registry.register(memoryNote);
  // As the local provider sends them: canonical schemas narrowed for its grammar.
  const defs = grammarToolDefs(registry.modelTools(DEFAULT_TOOLS.split(',')));
  const wire = toWireNames({ messages: [], tools: defs }).request.tools ?? [];
  const functions = Object.fromEntries(
    wire.map((tool) => [tool.name, { description: tool.description, params: tool.parameters }]),
  ) as ChatModelFunctions;

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
  const measure = (wrapper: QwenChatWrapper) => {
    const tools = wrapper.generateAvailableFunctionsSystemText(functions, { documentParams: true });
    const { contextText } = wrapper.generateContextState({
      chatHistory: [
        { type: 'system', text: DEFAULT_SYSTEM },
        { type: 'model', response: [] },
      ],
      availableFunctions: functions,
    });
    return {
      chars: tools.toString().length,
      tools: tools.tokenize(model.tokenizer).length,
      prefix: contextText.tokenize(model.tokenizer).length,
    };
  };
  const before = measure(new QwenChatWrapper({ thoughts: 'discourage' }));
  const after = measure(new CompactToolsQwenChatWrapper({ thoughts: 'discourage' }));

  console.log(
    `\ntools-prompt: the ${wire.length} default tools (${DEFAULT_TOOLS}) on the local model, ` +
      'Qwen2.5-shaped BPE tokenizer (token counts are exact, not timed)',
  );
  console.log('                         JSON schemas   signatures   ratio');
  const row = (label: string, a: number, b: number) =>
    console.log(
      `${label.padEnd(25)}${String(a).padStart(12)}${String(b).padStart(13)}${(b / a).toFixed(2).padStart(8)}×`,
    );
  row('characters of tool text', before.chars, after.chars);
  row('tokens of tool text', before.tools, after.tools);
  row('tokens of system + tools', before.prefix, after.prefix);
  console.log(
    `goal: tool text <= ${GOAL_TOKENS} tokens: ${after.tools <= GOAL_TOKENS ? 'met' : 'NOT met'} (${after.tools})`,
  );
  await model.dispose();
  await llama.dispose();
}
