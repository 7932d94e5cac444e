import { constants as fsConstants } from 'node:fs';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { modelsDir } from '../paths.js';

export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface DoctorCheck {
  id: string;
  label: string;
  status: CheckStatus;
  /** One human line: what was found and, when not ok, what to do about it. */
  summary: string;
  details?: Record<string, unknown>;
}

export async function checkDataDir(dataDir: string): Promise<DoctorCheck> {
  const base = { id: 'data-dir', label: 'Data directory', details: { path: dataDir } };
  try {
    await fs.access(dataDir, fsConstants.W_OK);
    return { ...base, status: 'ok', summary: `${dataDir} (writable)` };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return { ...base, status: 'ok', summary: `${dataDir} (created on first use)` };
    }
    return { ...base, status: 'fail', summary: `${dataDir} is not writable` };
  }
}

/**
 * Finds the Electron binary without importing the `electron` package: its index downloads the
 * binary on first require, which must never happen from a diagnostic command.
 */
export async function findElectronBinary(fromDir: string): Promise<string | null> {
  let packageDir: string;
  try {
    const require = createRequire(path.join(fromDir, 'noop.js'));
    packageDir = path.dirname(require.resolve('electron/package.json'));
  } catch {
    return null;
  }
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  try {
    const relative = (await fs.readFile(path.join(packageDir, 'path.txt'), 'utf8')).trim();
    const binary = override
      ? path.join(override, relative)
      : path.join(packageDir, 'dist', relative);
    await fs.access(binary, fsConstants.X_OK);
    return binary;
  } catch {
    return null;
  }
}

export async function checkElectron(fromDir: string): Promise<DoctorCheck> {
  const binary = await findElectronBinary(fromDir);
  return {
    id: 'electron',
    label: 'Electron binary',
    status: binary ? 'ok' : 'warn',
    summary: binary
      ? binary
      : 'not downloaded: the desktop app cannot start here; the headless CLI works (pincer --help)',
    details: { path: binary },
  };
}

/** Probes keytar (an optional native dependency) against the OS keychain for real. */
export async function checkKeychain(): Promise<DoctorCheck> {
  const base = { id: 'keychain', label: 'OS keychain' };
  let keytar: { findCredentials(service: string): Promise<unknown[]> };
  try {
    const loaded = (await import('keytar')) as { default?: typeof keytar } & typeof keytar;
    keytar = loaded.default ?? loaded;
  } catch {
    return {
      ...base,
      status: 'warn',
      summary: 'keytar is not installed (it needs libsecret at install time); secrets fall back',
      details: { backend: null },
    };
  }
  try {
    await keytar.findCredentials('pincer-doctor-probe');
    return {
      ...base,
      status: 'ok',
      summary: `keytar reached the ${keychainName()}`,
      details: { backend: 'keytar' },
    };
  } catch (error) {
    return {
      ...base,
      status: 'warn',
      summary: `keytar is installed but the ${keychainName()} is unavailable: ${errorText(error)}`,
      details: { backend: null },
    };
  }
}

function keychainName(): string {
  if (process.platform === 'darwin') return 'macOS Keychain';
  if (process.platform === 'win32') return 'Windows Credential Manager';
  return 'Secret Service';
}

export async function checkModels(dataDir: string): Promise<DoctorCheck> {
  const dir = modelsDir(dataDir);
  const entries = await fs.readdir(dir).catch(() => [] as string[]);
  const files = entries.filter((name) => name.toLowerCase().endsWith('.gguf')).sort();
  return {
    id: 'models',
    label: 'Local models',
    status: files.length > 0 ? 'ok' : 'warn',
    summary:
      files.length > 0
        ? `${files.length} GGUF file(s) in ${dir}: ${files.join(', ')}`
        : `no GGUF model in ${dir} yet`,
    details: { dir, files },
  };
}

/** Asks node-llama-cpp which compute backend it would use, without loading any model. */
export async function checkGpu(): Promise<DoctorCheck> {
  const base = { id: 'gpu', label: 'Inference backend' };
  try {
    const { getLlama, getLlamaGpuTypes, LlamaLogLevel } = await import('node-llama-cpp');
    const supported = await getLlamaGpuTypes('supported');
    const llama = await getLlama({
      gpu: 'auto',
      build: 'never',
      progressLogs: false,
      logLevel: LlamaLogLevel.error,
    });
    const gpu = llama.gpu;
    const details = { gpu, supported, buildType: llama.buildType, cpuCores: llama.cpuMathCores };
    await llama.dispose();
    return {
      ...base,
      status: 'ok',
      summary: gpu
        ? `node-llama-cpp will offload to ${gpu}`
        : 'node-llama-cpp runs on the CPU (no CUDA, Metal or Vulkan device found)',
      details,
    };
  } catch (error) {
    return {
      ...base,
      status: 'fail',
      summary: `node-llama-cpp could not load a binary: ${errorText(error)}`,
    };
  }
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0] ?? text;
}
