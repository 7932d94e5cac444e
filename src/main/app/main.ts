/**
 * The Electron shell's entry: thin glue between Electron and the core. Everything with logic
 * lives in src/main/core (the assistant, and the shell's decisions in core/desktop) and is
 * tested there; boot.ts wires it to Electron's APIs.
 */
import { bootDesktop } from './boot.js';

if (process.env.ELECTRON_RUN_AS_NODE) {
  // A tool worker asked this binary for Node mode, and a build whose RunAsNode fuse is off
  // ignores that and starts the app: leave at once (the worker pool reports it) instead of
  // opening a second app that would summon the first one's window.
  process.stderr.write(
    'this build of Pincer does not run in Node mode (its RunAsNode fuse is off), so its tool workers cannot start\n',
  );
  process.exit(78);
} else {
  bootDesktop({ model: { kind: 'local' } });
}
