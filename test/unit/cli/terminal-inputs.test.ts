/**
 * The terminal showing an MCP server's form: a form asking for a password or key carries the
 * core's warning before any field is asked (the same text the app's form card shows).
 */
import { PassThrough } from 'node:stream';
import { expect, it } from 'vitest';
import { terminalQuestions } from '../../../src/main/cli/terminal-approvals.js';
import { terminalInputs } from '../../../src/main/cli/terminal-inputs.js';
import { InputBroker, readInputForm } from '../../../src/main/core/policy/index.js';
import type { RunId, SessionId } from '../../../src/main/core/terms.js';

it('warns before a form that asks for a secret, and answers nothing by itself', async () => {
  const reading = readInputForm('Sign in to continue', {
    type: 'object',
    properties: { password: { type: 'string', title: 'Password' } },
  });
  if (!reading.ok) throw new Error(reading.reason);
  const broker = new InputBroker({ sessionOf: () => 'ses_1' as SessionId, timeoutMs: 30_000 });
  let shown = '';
  const stderr = new PassThrough();
  stderr.on('data', (chunk: Buffer) => {
    shown += chunk.toString();
  });
  const input = new PassThrough();
  const stop = terminalInputs(
    { dataDir: '', appDir: '', stdout: new PassThrough(), stderr },
    broker,
    terminalQuestions(undefined, input),
  );
  const outcome = broker.request({
    runId: 'run_1' as RunId,
    source: 'shady',
    form: reading.form,
    signal: new AbortController().signal,
  });
  // The person declines.
  input.write('d\n');
  expect((await outcome).answer.action).toBe('decline');
  stop();
  expect(shown).toMatch(/password, key or other secret/);
  expect(shown.indexOf('password, key')).toBeLessThan(shown.indexOf('[a]nswer'));
});
