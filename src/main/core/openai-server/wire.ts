/**
 * The request bodies the endpoint accepts, as OpenAI documents them, validated with zod.
 * Unknown fields are dropped (clients send many); fields that would change the answer in a way
 * this server cannot honour are refused with a 400 naming the parameter.
 */
import { z } from 'zod';

const textPart = z.object({ type: z.literal('text'), text: z.string() });
const imagePart = z.object({ type: z.literal('image_url') }).loose();
const userContent = z.union([z.string(), z.array(z.union([textPart, imagePart]))]);
const textContent = z.union([z.string(), z.array(textPart)]);

const toolCall = z.object({
  id: z.string(),
  type: z.literal('function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
});

export const chatMessage = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: textContent }),
  z.object({ role: z.literal('developer'), content: textContent }),
  z.object({ role: z.literal('user'), content: userContent }),
  z.object({
    role: z.literal('assistant'),
    content: textContent.nullish(),
    tool_calls: z.array(toolCall).optional(),
  }),
  z.object({ role: z.literal('tool'), tool_call_id: z.string(), content: textContent }),
]);
export type ChatMessage = z.infer<typeof chatMessage>;

const jsonObject = z.record(z.string(), z.unknown());

const functionTool = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'a function name is 1-64 of a-z A-Z 0-9 _ -'),
    description: z.string().optional(),
    parameters: jsonObject.optional(),
    strict: z.boolean().nullish(),
  }),
});

const toolChoice = z.union([
  z.enum(['auto', 'none', 'required']),
  z.object({ type: z.literal('function'), function: z.object({ name: z.string() }) }),
]);

const responseFormat = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    json_schema: z.object({
      name: z.string(),
      description: z.string().optional(),
      schema: jsonObject.optional(),
      strict: z.boolean().nullish(),
    }),
  }),
]);

const stop = z.union([z.string(), z.array(z.string()).max(4)]).nullish();
const positiveInt = z.number().int().positive();

/** Sampling and length fields shared by chat and text completions. */
const sampling = {
  model: z.string().min(1),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullish(),
  max_tokens: positiveInt.nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().gt(0).max(1).nullish(),
  seed: z.number().int().nullish(),
  n: z.literal(1, 'only n=1 is supported').nullish(),
  stop,
  logprobs: z.literal(false, 'logprobs are not available').nullish(),
};

export const chatCompletionRequest = z.object({
  ...sampling,
  messages: z.array(chatMessage).min(1),
  max_completion_tokens: positiveInt.nullish(),
  tools: z.array(functionTool).optional(),
  tool_choice: toolChoice.optional(),
  parallel_tool_calls: z.boolean().optional(),
  response_format: responseFormat.optional(),
});
export type ChatCompletionRequest = z.infer<typeof chatCompletionRequest>;

export const completionRequest = z.object({
  ...sampling,
  prompt: z.union([z.string(), z.array(z.string()).length(1, 'send one prompt per request')]),
  echo: z.literal(false, 'echo is not supported').nullish(),
  suffix: z.null('suffix (fill-in-the-middle) is not supported').optional(),
});
export type CompletionRequest = z.infer<typeof completionRequest>;

export const embeddingRequest = z.object({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(z.string()).min(1).max(2048)]),
  encoding_format: z.enum(['float', 'base64']).optional(),
  dimensions: positiveInt.optional(),
});
export type EmbeddingRequest = z.infer<typeof embeddingRequest>;

const inputText = z.object({ type: z.enum(['input_text', 'output_text']), text: z.string() });
const inputImage = z.object({ type: z.literal('input_image') }).loose();

const responseInputItem = z.union([
  z.object({
    type: z.literal('message').optional(),
    role: z.enum(['user', 'assistant', 'system', 'developer']),
    content: z.union([z.string(), z.array(z.union([inputText, inputImage]))]),
  }),
  z.object({
    type: z.literal('function_call'),
    call_id: z.string(),
    name: z.string(),
    arguments: z.string(),
  }),
  z.object({ type: z.literal('function_call_output'), call_id: z.string(), output: z.string() }),
]);
export type ResponseInputItem = z.infer<typeof responseInputItem>;

const responseTool = z.object({
  type: z.literal('function'),
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'a function name is 1-64 of a-z A-Z 0-9 _ -'),
  description: z.string().nullish(),
  parameters: jsonObject.nullish(),
  strict: z.boolean().nullish(),
});

const responseTextFormat = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    name: z.string(),
    schema: jsonObject,
    strict: z.boolean().nullish(),
  }),
]);

export const responsesRequest = z.object({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(responseInputItem).min(1)]),
  instructions: z.string().nullish(),
  tools: z.array(responseTool).optional(),
  tool_choice: z
    .union([
      z.enum(['auto', 'none', 'required']),
      z.object({ type: z.literal('function'), name: z.string() }),
    ])
    .optional(),
  max_output_tokens: positiveInt.nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().gt(0).max(1).nullish(),
  stream: z.boolean().nullish(),
  text: z.object({ format: responseTextFormat.optional() }).optional(),
  previous_response_id: z
    .null('previous_response_id is not supported: send the whole input')
    .nullish(),
});
export type ResponsesRequest = z.infer<typeof responsesRequest>;
