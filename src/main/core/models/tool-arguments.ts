/**
 * Reading a model's tool-call arguments. A model can send anything: text that is not JSON, an
 * array, a value nested a hundred thousand levels deep (which overflows the stack of whatever
 * walks it next: validation, redaction, storage). None of that is the run's failure: the call is
 * kept with an empty input and the reason, and answered with `invalid_arguments` so the model
 * can correct itself.
 */

/** Deeper than any tool schema needs; shallow enough for every recursive walk after it. */
export const MAX_ARGUMENT_DEPTH = 64;

export type ReadArguments = { input: Record<string, unknown> } | { problem: string };

/** Parses the JSON text of one call's arguments (empty text is `{}`). */
export function readArgumentsText(text: string): ReadArguments {
  const trimmed = text.trim();
  if (trimmed === '') return { input: {} };
  // Measured before parsing: the parse itself copes, but every walk after it would not.
  if (textDepth(trimmed) > MAX_ARGUMENT_DEPTH)
    return { problem: `the arguments are nested deeper than ${MAX_ARGUMENT_DEPTH} levels` };
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch (error) {
    return { problem: `the arguments are not valid JSON (${(error as Error).message})` };
  }
  return readArgumentsValue(value);
}

/** Checks arguments a protocol delivered already parsed (Gemini). */
export function readArgumentsValue(value: unknown): ReadArguments {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { problem: 'the arguments are not a JSON object' };
  if (valueDepth(value) > MAX_ARGUMENT_DEPTH)
    return { problem: `the arguments are nested deeper than ${MAX_ARGUMENT_DEPTH} levels` };
  return { input: value as Record<string, unknown> };
}

/** Deepest bracket nesting of JSON text, brackets inside strings not counted. */
function textDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{' || char === '[') deepest = Math.max(deepest, ++depth);
    else if (char === '}' || char === ']') depth--;
  }
  return deepest;
}

/** Depth of a parsed value, walked without recursion (stops once past the limit). */
function valueDepth(root: object): number {
  const stack: Array<[unknown, number]> = [[root, 1]];
  let deepest = 0;
  while (stack.length > 0) {
    const [value, depth] = stack.pop() as [unknown, number];
    if (value === null || typeof value !== 'object') continue;
    deepest = Math.max(deepest, depth);
    if (deepest > MAX_ARGUMENT_DEPTH) return deepest;
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
  return deepest;
}
