/**
 * `pincer chat`'s slash commands: /help, /model [NAME], /models, /new, /sessions, /open ID,
 * /exit. They act on the agent from the root and on the conversation in progress; everything
 * else typed at the prompt is a message.
 */
import type { Agent, ModelOptions } from '../core/agent/index.js';
import { SessionBook } from '../core/assistant/index.js';
import type { SessionId } from '../core/terms.js';
import type { CliContext } from './context.js';

export const CHAT_HELP = `Commands:
  /model           the model answering now
  /model NAME      switch model (an id or name from /models)
  /models          every model you can switch to
  /new             start a new conversation
  /sessions        recent conversations
  /open ID         continue a conversation from /sessions
  /help            this list
  /exit            quit (or Ctrl+D); Ctrl+C stops a reply
`;

/** The conversation a chat is in: undefined until the first message of a new one. */
export interface ChatState {
  sessionId: SessionId | undefined;
}

export type CommandResult = 'handled' | 'exit' | 'not-a-command';

export async function runChatCommand(
  line: string,
  ctx: CliContext,
  agent: Agent,
  picker: ModelOptions,
  state: ChatState,
): Promise<CommandResult> {
  if (!line.startsWith('/')) return 'not-a-command';
  const [command = '', ...rest] = line.split(/\s+/);
  const argument = rest.join(' ').trim();
  const say = (text: string) => ctx.stderr.write(`${text}\n`);
  switch (command) {
    case '/exit':
    case '/quit':
      return 'exit';
    case '/help':
      ctx.stderr.write(CHAT_HELP);
      return 'handled';
    case '/model': {
      if (!argument) {
        say(`model: ${agent.models.label()}`);
        return 'handled';
      }
      const option = await picker.find(argument);
      if (!option) {
        say(`no model "${argument}": /models lists them`);
        return 'handled';
      }
      await picker.select(option.id);
      say(`model: ${agent.models.label()}`);
      return 'handled';
    }
    case '/models': {
      const options = await picker.list();
      if (options.length === 0) say('no models: pincer models pull, or add a provider in the app');
      for (const option of options) {
        const mark = option.id === picker.selectedId ? '*' : ' ';
        say(`${mark} ${option.id}  (${option.source}: ${option.label})`);
      }
      return 'handled';
    }
    case '/new':
      state.sessionId = undefined;
      say('new conversation');
      return 'handled';
    case '/sessions': {
      const sessions = new SessionBook(agent.store, () => false).list().slice(0, 20);
      if (sessions.length === 0) say('no conversations yet');
      for (const session of sessions) {
        const mark = session.id === state.sessionId ? '*' : ' ';
        say(`${mark} ${session.id}  ${session.lastActivityAt.slice(0, 16)}  ${session.title}`);
      }
      return 'handled';
    }
    case '/open': {
      if (!argument || !new SessionBook(agent.store, () => false).exists(argument)) {
        say(`no conversation "${argument}": /sessions lists them`);
        return 'handled';
      }
      state.sessionId = argument as SessionId;
      say(`session: ${argument}`);
      return 'handled';
    }
    default:
      say(`unknown command ${command}: /help lists them`);
      return 'handled';
  }
}
