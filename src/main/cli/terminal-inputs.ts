/**
 * The terminal as the place to fill an MCP server's form (elicitation) during `pincer run` and
 * `pincer chat`: asked on stderr, answered one line per field on stdin, in the same queue as the
 * approvals. First `a` (answer), `d` (decline) or `c` (cancel); then each field: an empty line
 * leaves an optional field out (or takes its default), `y`/`n` answers a yes/no field, a number
 * or the value picks an option. An answer that does not fit the form is refused with the reasons
 * and asked again. A closed stdin cancels, as it denies an approval: nothing is sent unasked.
 *
 * Everything shown is the server's text: it goes through the CLI's sanitized stream, and each
 * line of the message is framed so it cannot pass for Pincer's own prompt.
 */
import type {
  InputAnswer,
  InputBroker,
  InputContent,
  InputField,
  PendingInput,
} from '../core/policy/index.js';
import type { CliContext } from './context.js';
import type { TerminalQuestions } from './terminal-approvals.js';

const CHOICES: Record<string, InputAnswer['action']> = {
  a: 'accept',
  answer: 'accept',
  d: 'decline',
  decline: 'decline',
  c: 'cancel',
  cancel: 'cancel',
};

export function terminalInputs(
  ctx: CliContext,
  broker: InputBroker,
  questions: TerminalQuestions,
): () => void {
  const say = (text: string) => ctx.stderr.write(text);
  /** The next line, or undefined when input closed (the form is then cancelled). */
  const line = questions.nextLine;
  const closed = (pending: PendingInput) => {
    say('\n  no answer (input closed): cancelled\n');
    broker.resolve(pending.id, { action: 'cancel' }, 'terminal (no answer)');
  };

  const ask = async (pending: PendingInput) => {
    // Answered elsewhere (another surface, the timeout) while earlier questions were asked.
    if (!broker.pending().some((p) => p.id === pending.id)) return;
    const framed = pending.message
      .split('\n')
      .map((text) => `  │ ${text}`)
      .join('\n');
    say(
      `\nMCP server ${pending.source} asks${pending.tool ? ` (during ${pending.tool})` : ''}:\n${framed}\n` +
        `  Fields: ${pending.fields.map(fieldSummary).join(', ')}\n`,
    );
    if (pending.warning) say(`  WARNING: ${pending.warning}\n`);
    while (true) {
      say('  [a]nswer, [d]ecline, [c]ancel: ');
      const choice = await line();
      if (choice === undefined) return closed(pending);
      const action = CHOICES[choice.trim().toLowerCase()];
      if (!action) continue;
      if (action !== 'accept') {
        report(broker.resolve(pending.id, { action }, 'terminal'));
        return;
      }
      const content = await fill(pending.fields);
      if (content === undefined) return closed(pending);
      const result = broker.resolve(pending.id, { action: 'accept', content }, 'terminal');
      if (result.result !== 'invalid') return report(result);
      say(`  That does not fit the form:\n${result.errors.map((e) => `    - ${e}\n`).join('')}`);
    }
  };

  const report = (result: ReturnType<InputBroker['resolve']>) => {
    if (result.result !== 'resolved') say('  (the form was no longer waiting)\n');
  };

  /** One line per field; undefined when input closed. */
  const fill = async (fields: InputField[]): Promise<InputContent | undefined> => {
    const content: InputContent = {};
    for (const field of fields) {
      while (true) {
        say(`  ${fieldPrompt(field)}: `);
        const given = await line();
        if (given === undefined) return undefined;
        const value = parseValue(field, given.trim());
        if (value === 'invalid') {
          say(`    ${hint(field)}\n`);
          continue;
        }
        if (value !== undefined) content[field.name] = value;
        break;
      }
    }
    return content;
  };

  return broker.onRequest((pending) => questions.enqueue(() => ask(pending)));
}

function fieldSummary(field: InputField): string {
  return `${field.name}${field.required ? '*' : ''}`;
}

function fieldPrompt(field: InputField): string {
  const label = field.title ? `${field.title} (${field.name})` : field.name;
  const about = field.description ? ` — ${field.description}` : '';
  const fallback = field.default !== undefined ? `, default ${String(field.default)}` : '';
  const need = field.required ? 'required' : 'optional';
  return `${label}${about} [${hint(field)}; ${need}${fallback}]`;
}

function hint(field: InputField): string {
  switch (field.kind) {
    case 'string': {
      const size =
        field.minLength !== undefined || field.maxLength !== undefined
          ? ` of ${field.minLength ?? 0}-${field.maxLength ?? '…'} characters`
          : '';
      return `${field.format ?? 'text'}${size}`;
    }
    case 'number':
    case 'integer': {
      const range =
        field.minimum !== undefined || field.maximum !== undefined
          ? ` from ${field.minimum ?? '…'} to ${field.maximum ?? '…'}`
          : '';
      return `${field.kind === 'integer' ? 'a whole number' : 'a number'}${range}`;
    }
    case 'boolean':
      return 'y or n';
    case 'enum':
      return `one of ${field.options.map((o, i) => `${i + 1}) ${o.label}`).join(' ')}`;
  }
}

/** What a typed line means for a field: a value, undefined (left out), or 'invalid'. */
function parseValue(
  field: InputField,
  text: string,
): string | number | boolean | undefined | 'invalid' {
  if (text === '') return field.default;
  switch (field.kind) {
    case 'string':
      return text;
    case 'number':
    case 'integer': {
      const value = Number(text);
      return Number.isFinite(value) ? value : 'invalid';
    }
    case 'boolean': {
      const yes = ['y', 'yes', 'true'].includes(text.toLowerCase());
      const no = ['n', 'no', 'false'].includes(text.toLowerCase());
      return yes ? true : no ? false : 'invalid';
    }
    case 'enum': {
      const index = /^\d+$/.test(text) ? Number(text) - 1 : -1;
      const option =
        field.options[index] ??
        field.options.find((o) => o.value === text || o.label.toLowerCase() === text.toLowerCase());
      return option ? option.value : 'invalid';
    }
  }
}
