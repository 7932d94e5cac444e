/**
 * Runs the dashboard full-screen on a terminal until the person leaves: alternate screen (the
 * shell's scrollback is left as it was), bracketed paste on, both restored on the way out.
 * Imported lazily, so only `pincer tui` and `pincer chat` on a terminal load Ink and React.
 */
import { render } from 'ink';
import type { CoreLink } from '../../core/gateway/index.js';
import { DashboardApp } from './Dashboard.js';

const ENTER = '\x1b[?1049h\x1b[?2004h';
const LEAVE = '\x1b[?2004l\x1b[?1049l';

export async function runDashboard(options: {
  link: CoreLink;
  sessionId?: string;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
}): Promise<void> {
  const stdout = options.stdout ?? process.stdout;
  stdout.write(ENTER);
  try {
    const app = render(<DashboardApp link={options.link} sessionId={options.sessionId ?? null} />, {
      stdout,
      stdin: options.stdin ?? process.stdin,
      exitOnCtrlC: false,
      patchConsole: true,
    });
    await app.waitUntilExit();
  } finally {
    stdout.write(LEAVE);
  }
}
