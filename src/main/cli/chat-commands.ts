/**
 * `pincer chat`'s slash commands: /help, /model [NAME], /models, /new, /sessions, /open ID,
 * /exit. They act on a `ChatSurface` (the agent in this process, or the one the chat attached
 * to) and on the conversation in progress; everything else typed at the prompt is a message.
 */
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

/** A model the chat can switch to, as /models lists it. */
export interface ChatModelOption {
  id: string;
  label: string;
  source: string;
}

/** What the slash commands act on: the agent in this process, or the one attached to. */
export interface ChatSurface {
  /** The model answering now, as a label. */
  activeModel(): Promise<string>;
  models(): Promise<{ options: ChatModelOption[]; selectedId: string | null }>;
  /** The option a typed name means (an id, a label, a file), if exactly one. */
  findModel(text: string): Promise<ChatModelOption | undefined>;
  /** Switches (remembered for the session when there is one); the model answering now. */
  selectModel(id: string, sessionId: SessionId | undefined): Promise<string>;
  /** Recent conversations, newest first. */
  sessions(): Promise<{ id: string; title: string; lastActivityAt: string }[]>;
  hasSession(id: string): Promise<boolean>;
}

export async function runChatCommand(
  line: string,
  ctx: CliContext,
  surface: ChatSurface,
  state: ChatState,
  help = CHAT_HELP,
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
      ctx.stderr.write(help);
      return 'handled';
    case '/model': {
      if (!argument) {
        say(`model: ${await surface.activeModel()}`);
        return 'handled';
      }
      const option = await surface.findModel(argument);
      if (!option) {
        say(`no model "${argument}": /models lists them`);
        return 'handled';
      }
      say(`model: ${await surface.selectModel(option.id, state.sessionId)}`);
      return 'handled';
    }
    case '/models': {
      const { options, selectedId } = await surface.models();
      if (options.length === 0) say('no models: pincer models pull, or add a provider in the app');
      for (const option of options) {
        const mark = option.id === selectedId ? '*' : ' ';
        say(`${mark} ${option.id}  (${option.source}: ${option.label})`);
      }
      return 'handled';
    }
    case '/new':
      state.sessionId = undefined;
      say('new conversation');
      return 'handled';
    case '/sessions': {
      const sessions = (await surface.sessions()).slice(0, 20);
      if (sessions.length === 0) say('no conversations yet');
      for (const session of sessions) {
        const mark = session.id === state.sessionId ? '*' : ' ';
        say(`${mark} ${session.id}  ${session.lastActivityAt.slice(0, 16)}  ${session.title}`);
      }
      return 'handled';
    }
    case '/open': {
      if (!argument || !(await surface.hasSession(argument))) {
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
