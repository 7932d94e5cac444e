/**
 * The Electron shell's entry: thin glue between Electron and the core. Everything with logic
 * lives in src/main/core (the assistant, and the shell's decisions in core/desktop) and is
 * tested there; boot.ts wires it to Electron's APIs.
 */
import { bootDesktop } from './boot.js';

bootDesktop({ model: { kind: 'local' } });
