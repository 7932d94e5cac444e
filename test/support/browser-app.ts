/**
 * The app as the browser E2E suites drive it: a real assistant with the scripted model, served
 * by `pincer gateway`'s server with the built renderer, in Debian's Chromium, the page open and
 * connected. A suite that cannot run here (no Chromium, renderer not built) is skipped with the
 * reason printed, never failed.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { Assistant } from '../../src/main/core/assistant/index.js';
import {
  type Gateway,
  type GatewayOptions,
  startAssistantGateway,
} from '../../src/main/core/gateway/server.js';
import { type AssistantFixture, scriptedAssistant } from './assistant-harness.js';
import { chromiumMissingReason, launchChromium } from './browser.js';

export const RENDERER_DIR = path.resolve(import.meta.dirname, '../../out/renderer');

/** Why the browser suite named `suite` cannot run here (printed once), or null. */
export function browserSkipReason(suite: string): string | null {
  const reason =
    chromiumMissingReason() ??
    (existsSync(path.join(RENDERER_DIR, 'index.html'))
      ? null
      : 'renderer not built: run `npm run build`');
  if (reason) console.warn(`[e2e] skipping ${suite}: ${reason}`);
  return reason;
}

export interface BrowserApp {
  assistant: Assistant;
  gateway: Gateway;
  browser: Browser;
  page: Page;
  /** Closes the browser, the gateway and the assistant the app made, whatever was opened. */
  close(): Promise<void>;
}

/** The app over the scripted assistant it made (and closes). */
export interface ScriptedBrowserApp extends BrowserApp {
  fixture: AssistantFixture;
}

interface CommonOptions {
  viewport?: { width: number; height: number };
  /** More of the gateway's options (the renderer is always the built one). */
  gateway?: Omit<GatewayOptions, 'handlers' | 'subscribe' | 'rendererDir'>;
  /** Runs on the new page before it loads the app (listeners, init scripts). */
  beforeLoad?: (page: Page) => void | Promise<void>;
}

/** Over an assistant the test made itself (and closes itself). */
export function openBrowserApp(
  options: CommonOptions & { assistant: Assistant },
): Promise<BrowserApp>;
/** Over a scripted assistant made with `scripted` (the conversation script by default). */
export function openBrowserApp(
  options?: CommonOptions & { scripted?: Parameters<typeof scriptedAssistant>[0] },
): Promise<ScriptedBrowserApp>;

export async function openBrowserApp(
  options: CommonOptions & {
    assistant?: Assistant;
    scripted?: Parameters<typeof scriptedAssistant>[0];
  } = {},
): Promise<BrowserApp | ScriptedBrowserApp> {
  const opened: Array<() => Promise<unknown>> = [];
  const close = async () => {
    for (const step of opened.reverse()) await step();
  };
  try {
    let fixture: AssistantFixture | undefined;
    let assistant = options.assistant;
    if (!assistant) {
      const made = await scriptedAssistant(options.scripted);
      opened.push(() => made.close());
      fixture = made;
      assistant = made.assistant;
    }
    const gateway = await startAssistantGateway({
      ...options.gateway,
      assistant,
      rendererDir: RENDERER_DIR,
    });
    opened.push(() => gateway.close());
    const browser = await launchChromium();
    opened.push(() => browser.close());
    const page = await browser.newPage({
      viewport: options.viewport ?? { width: 1280, height: 900 },
    });
    await options.beforeLoad?.(page);
    await page.goto(gateway.openUrl);
    await page.getByText('connected · gateway').waitFor();
    return { fixture, assistant, gateway, browser, page, close };
  } catch (error) {
    await close();
    throw error;
  }
}
