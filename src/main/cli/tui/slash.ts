/** Slash commands of the dashboard's input line; anything else is a message. */

export type SlashCommand =
  | { kind: 'new' }
  | { kind: 'session'; sessionId: string }
  | { kind: 'model'; name: string }
  | { kind: 'cancel' }
  | { kind: 'help' }
  | { kind: 'exit' }
  | { kind: 'unknown'; text: string };

export const SLASH_COMMANDS = [
  { name: 'new', usage: '/new', help: 'start a new conversation' },
  { name: 'session', usage: '/session ID', help: 'continue another session' },
  { name: 'model', usage: '/model NAME', help: 'switch the local model (installed ones)' },
  { name: 'cancel', usage: '/cancel', help: 'stop the reply being written' },
  { name: 'help', usage: '/help', help: 'keys and commands' },
  { name: 'exit', usage: '/exit', help: 'leave (the agent keeps running when attached)' },
] as const;

export function parseSlash(text: string): SlashCommand | undefined {
  if (!text.startsWith('/') || text.startsWith('//')) return undefined;
  const [word = '', ...rest] = text.slice(1).trim().split(/\s+/);
  const arg = rest.join(' ');
  switch (word) {
    case 'new':
      return { kind: 'new' };
    case 'session':
      return arg ? { kind: 'session', sessionId: arg } : { kind: 'unknown', text };
    case 'model':
      return arg ? { kind: 'model', name: arg } : { kind: 'unknown', text };
    case 'cancel':
      return { kind: 'cancel' };
    case 'help':
      return { kind: 'help' };
    case 'exit':
    case 'quit':
      return { kind: 'exit' };
    default:
      return { kind: 'unknown', text };
  }
}
