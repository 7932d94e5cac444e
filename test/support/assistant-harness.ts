/**
 * A real assistant (database, registry, policy, approvals, audit, runtime) in a temp data dir,
 * answering with the scripted model: what the gateway tests and the browser E2E drive.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Assistant, createAssistant } from '../../src/main/core/assistant/index.js';
import type { ModelCatalog } from '../../src/main/core/local/catalog.js';
import { viaProvider } from '../../src/main/core/models/access.js';
import type { ModelRequest } from '../../src/main/core/models/types.js';
import type { SecretStore } from '../../src/main/core/secrets/index.js';
import { ScriptedProvider, type ScriptedReply } from './scripted-provider.js';
import { vaultSecrets } from './secrets.js';

export const APP_DIR = path.resolve(import.meta.dirname, '../..');

/** The markdown reply to an ordinary message, streamed in small pieces. */
export const GREETING = [
  'Hello',
  ' from **Pincer**.',
  ' Here is some code:\n\n',
  '```ts\nconst answer = 42;\n',
  'console.log(answer);\n```\n\n',
  '- one\n- two\n',
];

function lastUserText(request: ModelRequest): string {
  const last = request.messages.at(-1);
  const text = last?.content.find((b) => b.type === 'text');
  return text?.type === 'text' ? text.text : '';
}

/**
 * Replies by what was asked: "write ..." calls fs/write (a guarded tool: the policy asks);
 * "slow ..." streams for a long time (to cancel); a tool result is read back to the user;
 * anything else gets the markdown greeting.
 */
export function conversationScript(delayMs = 40) {
  return (request: ModelRequest): ScriptedReply => {
    const last = request.messages.at(-1);
    const result = last?.content.find((b) => b.type === 'tool_result');
    if (result?.type === 'tool_result') {
      const content = typeof result.content === 'string' ? result.content : '';
      return result.isError
        ? { text: [`The write did not happen: ${content}`], delayMs }
        : { text: ['Done: ', `the tool said ${content.slice(0, 200)}`], delayMs };
    }
    const text = lastUserText(request);
    if (text.startsWith('write')) {
      return {
        text: 'I will write the note.',
        toolCalls: [
          {
            name: 'fs/write',
            input: { path: 'notes/hello.txt', content: 'hello from the UI test' },
          },
        ],
        delayMs,
      };
    }
    if (text.startsWith('html')) {
      // What a hostile page quoted by the model could carry: markup, script, a javascript: link.
      return {
        text: [
          'Look: <img src=x onerror="window.__pwned=1"> and ',
          '<script>window.__pwned=2</script> and [click me](javascript:window.__pwned=3) ',
          'and ![pic](http://127.0.0.1:1/tracker.png) and [docs](https://example.org/docs)',
        ],
        delayMs,
      };
    }
    if (text.startsWith('markdown')) {
      return {
        text: [
          '# Big\n\n## Smaller\n\n### Smallest\n\n',
          '| left | centre | right |\n|:--|:-:|--:|\n| a | b | c |\n\n',
          '```python\ndef answer():\n    return 42  # the answer\n```\n',
        ],
        delayMs,
      };
    }
    if (text.startsWith('escape')) {
      // What a hostile tool result or model could try on a terminal: clipboard write (OSC 52),
      // clear screen, a carriage return over the line, a bidi override.
      return {
        text: ['Sure: \x1b]52;c;cm0gLXJmIH4=\x07 then \x1b[2J\x1b[H', 'over\rwritten \u202eevil'],
        delayMs,
      };
    }
    if (text.startsWith('sign me up')) {
      // The fixture MCP server's tool that asks the user to fill a form mid-call.
      return {
        text: 'Let me ask the newsletter server.',
        toolCalls: [{ name: 'mcp/asker/signup', input: {} }],
        delayMs,
      };
    }
    if (text.startsWith('slow')) {
      return { text: Array.from({ length: 200 }, (_, i) => `word${i} `), delayMs: 150 };
    }
    return { text: GREETING, delayMs };
  };
}

export interface AssistantFixture {
  assistant: Assistant;
  dataDir: string;
  /** The scripted model, whose `requests` show what reached it. */
  provider: ScriptedProvider;
  close(): Promise<void>;
}

export async function scriptedAssistant(
  options: {
    delayMs?: number;
    catalog?: ModelCatalog;
    secrets?: SecretStore;
    /** Reopen an existing data directory (the caller removes it); else a fresh temp one. */
    dataDir?: string;
    /** The UI can fill an MCP server's form: servers are told they may ask. */
    askForInput?: boolean;
    /** A claw.yaml to use instead of the shipped default. */
    manifest?: string;
    /** Tool name globs (the agent's default list otherwise). */
    tools?: string;
    /** Answers instead of the conversation script. */
    script?: (request: ModelRequest) => ScriptedReply;
  } = {},
): Promise<AssistantFixture> {
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'pincer-assistant-')));
  const provider = new ScriptedProvider(options.script ?? conversationScript(options.delayMs));
  const assistant = await createAssistant({
    dataDir,
    appDir: APP_DIR,
    model: {
      kind: 'fixed',
      access: viaProvider(provider, 'scripted'),
      label: 'scripted/test',
      scripted: true,
      contextWindow: 8192,
    },
    catalog: options.catalog,
    ...(options.askForInput ? { askForInput: true } : {}),
    ...(options.manifest ? { manifest: options.manifest } : {}),
    ...(options.tools !== undefined ? { tools: options.tools } : {}),
    // A real passphrase vault in the temp dir: no keychain, and nothing from this machine's env.
    secrets: options.secrets ?? vaultSecrets(dataDir, 'harness-passphrase'),
  });
  return {
    assistant,
    dataDir,
    provider,
    close: async () => {
      await assistant.close();
      if (!options.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
