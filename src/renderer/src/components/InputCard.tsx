/**
 * A form an MCP server asks the user to fill while one of its tools runs (elicitation). Built
 * from the fields the core read out of the server's schema: a label (title, else the name), the
 * description, a required mark, and the control the type calls for. Everything the server wrote
 * is shown as plain text: never markup, never a link. Submit checks nothing itself: the core
 * checks the answer against the form and says what does not fit; the card keeps what was typed.
 */
import { type FormEvent, type ReactElement, useId, useState } from 'react';
import type { InputFieldView, PendingInputView } from '../../../shared/ipc';

export type InputAction = 'accept' | 'decline' | 'cancel';
type Value = string | boolean;
export type InputContent = Record<string, string | number | boolean>;

function initial(field: InputFieldView): Value {
  if (field.kind === 'boolean') return field.default ?? false;
  return field.default === undefined ? '' : String(field.default);
}

const INPUT_TYPE = { email: 'email', uri: 'url', date: 'date', 'date-time': 'datetime-local' };

/** What the form holds, as the answer's content: empty optional fields left out. */
function contentOf(fields: InputFieldView[], values: Record<string, Value>): InputContent {
  const content: InputContent = {};
  for (const field of fields) {
    const value = values[field.name];
    if (field.kind === 'boolean') {
      content[field.name] = value === true;
      continue;
    }
    if (typeof value !== 'string' || value === '') continue;
    if (field.kind === 'number' || field.kind === 'integer') {
      const number = Number(value);
      content[field.name] = Number.isFinite(number) ? number : value;
    } else if (field.kind === 'string' && field.format === 'date-time') {
      // The browser's local date and time, as the RFC 3339 instant a server reads.
      const when = new Date(value);
      content[field.name] = Number.isNaN(when.getTime()) ? value : when.toISOString();
    } else content[field.name] = value;
  }
  return content;
}

function Field({
  field,
  value,
  onChange,
}: {
  field: InputFieldView;
  value: Value;
  onChange: (value: Value) => void;
}) {
  const id = useId();
  const about = field.description ? `${id}-about` : undefined;
  const label = (
    <label htmlFor={id}>
      {field.title ?? field.name}
      {field.required && (
        <span className="required-mark" title="required">
          {' '}
          *<span className="sr-only"> (required)</span>
        </span>
      )}
    </label>
  );
  const common = {
    id,
    name: field.name,
    'aria-required': field.required,
    'aria-describedby': about,
  };
  let control: ReactElement;
  switch (field.kind) {
    case 'boolean':
      return (
        <div className="input-field checkbox">
          <input
            {...common}
            type="checkbox"
            checked={value === true}
            onChange={(event) => onChange(event.target.checked)}
          />
          {label}
          {about && (
            <small id={about} className="muted">
              {field.description}
            </small>
          )}
        </div>
      );
    case 'enum':
      control = (
        <select
          {...common}
          value={String(value)}
          onChange={(event) => onChange(event.target.value)}
        >
          <option value="">{field.required ? 'Choose…' : '(none)'}</option>
          {field.options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      );
      break;
    case 'number':
    case 'integer':
      control = (
        <input
          {...common}
          type="number"
          step={field.kind === 'integer' ? 1 : 'any'}
          min={field.minimum}
          max={field.maximum}
          value={String(value)}
          onChange={(event) => onChange(event.target.value)}
        />
      );
      break;
    default:
      control = (
        <input
          {...common}
          type={field.sensitive ? 'password' : field.format ? INPUT_TYPE[field.format] : 'text'}
          autoComplete={field.sensitive ? 'off' : undefined}
          minLength={field.minLength}
          maxLength={field.maxLength}
          value={String(value)}
          onChange={(event) => onChange(event.target.value)}
        />
      );
  }
  return (
    <div className="input-field">
      {label}
      {control}
      {about && (
        <small id={about} className="muted">
          {field.description}
        </small>
      )}
    </div>
  );
}

export function InputCard({
  input,
  onAnswer,
}: {
  input: PendingInputView;
  /** Resolves with what does not fit the form (empty: answered). */
  onAnswer: (id: string, action: InputAction, content?: InputContent) => Promise<string[]>;
}) {
  const [values, setValues] = useState<Record<string, Value>>(() =>
    Object.fromEntries(input.fields.map((field) => [field.name, initial(field)])),
  );
  const [errors, setErrors] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const headingId = useId();

  const answer = async (action: InputAction) => {
    setBusy(true);
    try {
      const content = action === 'accept' ? contentOf(input.fields, values) : undefined;
      setErrors(await onAnswer(input.id, action, content));
    } finally {
      setBusy(false);
    }
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void answer('accept');
  };

  return (
    <form
      className="input-card"
      aria-labelledby={headingId}
      data-testid="input-card"
      noValidate
      onSubmit={submit}
    >
      <h3 id={headingId}>
        <span className="muted">MCP server</span> {input.source}{' '}
        <span className="muted">asks{input.tool ? ` during ${input.tool}` : ''}</span>
      </h3>
      {/* The server's words, as text: React escapes them; nothing here is a link. */}
      <p className="input-message" data-testid="input-message">
        {input.message}
      </p>
      {input.warning && (
        <p className="input-warning" role="alert" data-testid="input-warning">
          {input.warning}
        </p>
      )}
      {input.fields.map((field) => (
        <Field
          key={field.name}
          field={field}
          value={values[field.name] ?? ''}
          onChange={(value) => setValues((now) => ({ ...now, [field.name]: value }))}
        />
      ))}
      {errors.length > 0 && (
        <ul className="input-errors" role="alert">
          {errors.map((error) => (
            <li key={error}>{error}</li>
          ))}
        </ul>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          Submit
        </button>
        <button type="button" disabled={busy} onClick={() => void answer('decline')}>
          Decline
        </button>
        <button
          type="button"
          className="ghost"
          disabled={busy}
          onClick={() => void answer('cancel')}
        >
          Cancel
        </button>
      </div>
    </form>
  );
}
