/**
 * The desktop app exactly as main.ts starts it, but answering with the scripted model of the
 * assistant harness (so a guarded tool call happens on cue). The Electron suite bundles this to
 * out/main/e2e.js, next to the real main, so the preload and renderer paths are the real ones.
 */
import path from 'node:path';
import { bootDesktop } from '../../src/main/app/boot.js';
import { viaProvider } from '../../src/main/core/models/access.js';
import { conversationScript } from '../support/assistant-harness.js';
import { ScriptedProvider } from '../support/scripted-provider.js';

bootDesktop({
  appDir: path.resolve(import.meta.dirname, '../..'),
  model: {
    kind: 'fixed',
    access: viaProvider(new ScriptedProvider(conversationScript(20)), 'scripted'),
    label: 'scripted/test',
    scripted: true,
  },
});
