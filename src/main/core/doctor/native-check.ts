import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { DoctorCheck } from './checks.js';

/**
 * The native modules Pincer loads, each loaded for real: an install whose build step did not run
 * (a compiler missing, or npm skipping a package's install script) leaves a package without its
 * `.node` file, which otherwise surfaces only as a stack trace on first use.
 */
interface NativeModule {
  name: string;
  /** Without it Pincer cannot run (fail), or it falls back (warn). */
  required: boolean;
  /** Loads it as Pincer does, down to the native code; throws what a user would meet. */
  load(load: NodeJS.Require): void | Promise<void>;
  /** One line: what to run. */
  fix: string;
}

type Sqlite = new (
  file: string,
) => {
  loadExtension(file: string): void;
  close(): void;
};

const MODULES: readonly NativeModule[] = [
  {
    name: 'better-sqlite3',
    required: true,
    load: (load) => {
      const Database = load('better-sqlite3') as Sqlite;
      new Database(':memory:').close();
    },
    fix: 'npm rebuild better-sqlite3 (it builds with python3, make and a C++ compiler when no prebuilt binary fits)',
  },
  {
    name: 'sqlite-vec',
    required: true,
    load: (load) => {
      const { getLoadablePath } = load('sqlite-vec') as { getLoadablePath(): string };
      const extension = getLoadablePath();
      let db: InstanceType<Sqlite>;
      try {
        db = new (load('better-sqlite3') as Sqlite)(':memory:');
      } catch {
        // better-sqlite3 reports its own failure; the extension file was found.
        return;
      }
      try {
        db.loadExtension(extension);
      } finally {
        db.close();
      }
    },
    fix: `npm install --include=optional (it brings sqlite-vec-${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch})`,
  },
  {
    name: 'keytar',
    required: false,
    load: (load) => {
      load('keytar');
    },
    fix: 'npm rebuild keytar (on Linux it needs libsecret-1-dev first); until then secrets use the encrypted file',
  },
  {
    name: 'node-llama-cpp',
    required: true,
    load: async (load) => {
      const entry = load.resolve('node-llama-cpp');
      const { getLlama, LlamaLogLevel } = (await import(
        pathToFileURL(entry).href
      )) as typeof import('node-llama-cpp');
      const llama = await getLlama({
        gpu: false,
        build: 'never',
        progressLogs: false,
        logLevel: LlamaLogLevel.error,
      });
      await llama.dispose();
    },
    fix: 'npm install --include=optional (it brings the prebuilt @node-llama-cpp build for this machine)',
  },
];

export interface NativeCheckOptions {
  /** Where the modules are resolved from (default: this code's own location, as Pincer loads them). */
  from?: string;
}

/** Loads each native module; reports which did not load, each with its one-line fix. */
export async function checkNativeModules(options: NativeCheckOptions = {}): Promise<DoctorCheck> {
  const load = createRequire(options.from ?? import.meta.url);
  const failed: Array<{ name: string; required: boolean; error: string; fix: string }> = [];
  for (const module of MODULES) {
    try {
      await module.load(load);
    } catch (error) {
      failed.push({
        name: module.name,
        required: module.required,
        error: firstLine(error),
        fix: module.fix,
      });
    }
  }
  const loaded = MODULES.map((module) => module.name).filter(
    (name) => !failed.some((failure) => failure.name === name),
  );
  const base = { id: 'native-modules', label: 'Native modules', details: { loaded, failed } };
  if (failed.length === 0) {
    return { ...base, status: 'ok', summary: `${loaded.join(', ')} loaded` };
  }
  return {
    ...base,
    status: failed.some((failure) => failure.required) ? 'fail' : 'warn',
    summary: failed
      .map((failure) => `${failure.name} did not load (${failure.error}): ${failure.fix}`)
      .join('; '),
  };
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (text.split('\n')[0] ?? text).slice(0, 200);
}
