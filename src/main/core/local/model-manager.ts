import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, truncate } from 'node:fs/promises';
import path from 'node:path';
import type { ModelDownloader } from 'node-llama-cpp';
import { type CatalogEntry, findEntry, type ModelCatalog } from './catalog.js';
import { errorMessage, LocalEngineError } from './errors.js';
import { inspectModelFile, modelFileProblem } from './gguf-check.js';

export interface ModelLocations {
  /** The data dir's models folder (downloads land here). */
  modelsDir: string;
  /** The app's bundled models (resources/models), when packaged with any. */
  bundledDir?: string;
}

export type ModelSource = 'flag' | 'env' | 'bundled' | 'data';

export interface ResolvedModel {
  path: string;
  source: ModelSource;
}

/**
 * Finds the chat model to use, in order: `--model-path`, `PINCER_MODEL` (a path or a catalog
 * name), the app's bundled resources/models, then the data dir. In the two folders the
 * catalog's default wins, then any other chat model the catalog knows, then any .gguf.
 * Returns undefined when there is none anywhere.
 */
export async function resolveChatModel(
  catalog: ModelCatalog,
  locations: ModelLocations,
  options: {
    modelPath?: string;
    env?: Record<string, string | undefined>;
    /** Told of each file in the folders that is skipped because its header is unsound. */
    onSkip?: (skipped: SkippedModel) => void;
  } = {},
): Promise<ResolvedModel | undefined> {
  if (options.modelPath)
    return { path: await mustExist(options.modelPath, '--model-path'), source: 'flag' };
  const fromEnv = options.env?.PINCER_MODEL?.trim();
  if (fromEnv) {
    const known = catalog.models.find((m) => m.name === fromEnv);
    const file = known ? path.join(locations.modelsDir, known.fileName) : fromEnv;
    return { path: await mustExist(file, 'PINCER_MODEL'), source: 'env' };
  }
  const embeddingFiles = new Set(
    catalog.models.filter((m) => m.kind === 'embedding').map((m) => m.fileName),
  );
  const preferred = [
    findEntry(catalog, catalog.defaultChat).fileName,
    ...catalog.models.filter((m) => m.kind === 'chat').map((m) => m.fileName),
  ];
  for (const [dir, source] of [
    [locations.bundledDir, 'bundled'],
    [locations.modelsDir, 'data'],
  ] as const) {
    if (!dir) continue;
    const files = (await ggufFiles(dir)).filter((f) => !embeddingFiles.has(f));
    const ordered = [
      ...preferred.filter((f) => files.includes(f)),
      ...files.filter((f) => !preferred.includes(f)),
    ];
    // A file that fails the bounded header check is passed over, so one hostile or broken
    // file in the folder neither hangs the scan nor hides the good models beside it.
    for (const pick of ordered) {
      const file = path.join(dir, pick);
      const problem = await modelFileProblem(file);
      if (!problem) return { path: file, source };
      options.onSkip?.({ path: file, problem });
    }
  }
  return undefined;
}

/**
 * Every chat GGUF where resolveChatModel looks (bundled folder, then the data dir), embedding
 * models of the catalog left out. Paths only: each header is checked by whoever opens one.
 */
export async function chatModelFiles(
  catalog: ModelCatalog,
  locations: ModelLocations,
): Promise<string[]> {
  const embeddingFiles = new Set(
    catalog.models.filter((m) => m.kind === 'embedding').map((m) => m.fileName),
  );
  const out: string[] = [];
  for (const dir of [locations.bundledDir, locations.modelsDir]) {
    if (!dir) continue;
    for (const name of await ggufFiles(dir)) {
      if (!embeddingFiles.has(name)) out.push(path.join(dir, name));
    }
  }
  return out;
}

export interface SkippedModel {
  path: string;
  problem: string;
}

/** What to tell someone who has no model anywhere. */
export function noModelHelp(catalog: ModelCatalog, locations: ModelLocations): string {
  const small = catalog.models.filter((m) => m.kind === 'chat').at(-1)?.name ?? catalog.defaultChat;
  return [
    'No local model found. Get one with:',
    `  pincer models pull ${catalog.defaultChat}    (default, ${gb(findEntry(catalog, catalog.defaultChat).sizeBytes)} download)`,
    `  pincer models pull ${small}    (smallest, for low-memory machines)`,
    `or pass --model-path FILE.gguf, set PINCER_MODEL, or copy a .gguf file into ${locations.modelsDir}`,
  ].join('\n');
}

export interface InstalledModel {
  fileName: string;
  path: string;
  bytes: number;
  entry?: CatalogEntry;
  /** Why the file cannot be used (its header failed the check); undefined when it is sound. */
  problem?: string;
}

export async function listInstalled(
  catalog: ModelCatalog,
  modelsDir: string,
): Promise<InstalledModel[]> {
  const out: InstalledModel[] = [];
  for (const fileName of await ggufFiles(modelsDir)) {
    const file = path.join(modelsDir, fileName);
    out.push({
      fileName,
      path: file,
      bytes: (await stat(file)).size,
      entry: catalog.models.find((m) => m.fileName === fileName),
      problem: await modelFileProblem(file),
    });
  }
  return out;
}

export function modelPath(catalog: ModelCatalog, modelsDir: string, name: string): string {
  return path.join(modelsDir, findEntry(catalog, name).fileName);
}

/** Deletes an installed model; false when it was not installed. */
export async function removeModel(
  catalog: ModelCatalog,
  modelsDir: string,
  name: string,
): Promise<boolean> {
  const entry = catalog.models.find((m) => m.name === name || m.fileName === name);
  const fileName = entry?.fileName ?? name;
  if (!fileName.endsWith('.gguf') || fileName.includes('/') || fileName.includes('\\')) {
    throw new LocalEngineError('unknown_model', `No model named "${name}"`);
  }
  const file = path.join(modelsDir, fileName);
  try {
    await stat(file);
  } catch {
    return false;
  }
  await rm(file);
  return true;
}

export interface PullProgress {
  downloadedBytes: number;
  totalBytes: number;
}

export interface PullOptions {
  onProgress?: (progress: PullProgress) => void;
  signal?: AbortSignal;
  /** Give up when no byte arrives for this long (default 60 s); the partial file is removed. */
  stallTimeoutMs?: number;
  /** Override the catalog URL (mirrors, tests). */
  url?: string;
}

export interface PullResult {
  path: string;
  bytes: number;
  sha256: string;
  alreadyPresent: boolean;
}

/**
 * Downloads a catalog model with node-llama-cpp's downloader (parallel ranged requests, retried
 * and resumed chunk by chunk when a connection drops) into `models/.partial/`, checks its
 * sha256 and that it is a complete GGUF, and only then renames it into place, so the models
 * folder never holds a half-written model.
 */
export async function pullModel(
  entry: CatalogEntry,
  modelsDir: string,
  options: PullOptions = {},
): Promise<PullResult> {
  const target = path.join(modelsDir, entry.fileName);
  const existing = await stat(target).catch(() => undefined);
  if (existing) {
    const sha256 = await sha256File(target);
    if (!entry.sha256 || entry.sha256 === sha256) {
      return { path: target, bytes: existing.size, sha256, alreadyPresent: true };
    }
  }
  const url = options.url ?? entry.url;
  await checkReachable(url, options.signal);

  const partialDir = path.join(modelsDir, '.partial');
  const partial = path.join(partialDir, entry.fileName);
  await mkdir(partialDir, { recursive: true });
  try {
    const totalBytes = await download(url, partialDir, entry.fileName, options);
    await settleDownloadedFile(partial, totalBytes);
    const sha256 = await sha256File(partial);
    if (entry.sha256 && sha256 !== entry.sha256) {
      throw new LocalEngineError(
        'checksum_mismatch',
        `${entry.fileName} from ${url} has sha256 ${sha256}, but the catalog expects ${entry.sha256}. ` +
          'The file was discarded; try again later or from another mirror.',
      );
    }
    await inspectModelFile(partial);
    await rename(partial, target);
    return { path: target, bytes: (await stat(target)).size, sha256, alreadyPresent: false };
  } catch (error) {
    await rm(partial, { force: true });
    await rm(`${partial}.ipull`, { force: true });
    throw error;
  }
}

async function download(
  url: string,
  dir: string,
  fileName: string,
  options: PullOptions,
): Promise<number> {
  let downloader: ModelDownloader;
  const { createModelDownloader } = await import('node-llama-cpp');
  try {
    downloader = await createModelDownloader({
      modelUrl: url,
      dirPath: dir,
      fileName,
      skipExisting: false,
      deleteTempFileOnCancel: false,
    });
  } catch (error) {
    throw new LocalEngineError(
      'download_failed',
      `Could not start downloading ${url}: ${errorMessage(error)}`,
      {
        cause: error,
      },
    );
  }
  const stallMs = options.stallTimeoutMs ?? 60_000;
  let lastBytes = -1;
  let lastChange = Date.now();
  let watchdog: NodeJS.Timeout | undefined;
  // The downloader retries a dead connection for many minutes and its promise does not settle
  // when cancelled, so a watchdog turns "no progress" and cancellation into errors.
  const stopped = new Promise<never>((_, reject) => {
    const fail = (error: LocalEngineError) => {
      clearInterval(watchdog);
      void downloader.cancel({ deleteTempFile: true });
      reject(error);
    };
    watchdog = setInterval(
      () => {
        const bytes = downloader.downloadedSize;
        options.onProgress?.({ downloadedBytes: bytes, totalBytes: downloader.totalSize });
        if (bytes !== lastBytes) {
          lastBytes = bytes;
          lastChange = Date.now();
        } else if (Date.now() - lastChange > stallMs) {
          fail(
            new LocalEngineError(
              'download_failed',
              `The download of ${url} stopped at ${bytes} of ${downloader.totalSize} bytes ` +
                `(no data for ${Math.round(stallMs / 1000)} s). Check the connection and run the pull again.`,
            ),
          );
        }
      },
      Math.min(250, stallMs / 4),
    );
    options.signal?.addEventListener('abort', () =>
      fail(new LocalEngineError('download_failed', `The download of ${url} was cancelled`)),
    );
  });
  try {
    await Promise.race([downloader.download(), stopped]);
    options.onProgress?.({
      downloadedBytes: downloader.totalSize,
      totalBytes: downloader.totalSize,
    });
    return downloader.totalSize;
  } finally {
    clearInterval(watchdog);
  }
}

/**
 * Makes the downloaded file exactly `totalBytes` long. The downloader keeps its resume state as
 * JSON after the file's last byte and cuts it off when done, but a state save already under way
 * can land after that cut (ipull 3.9: the save checks "finished" before its write is queued), so
 * a complete download may end in a few hundred bytes of JSON. Those are cut here; a file shorter
 * than the server's size is an error, not something to hash.
 */
export async function settleDownloadedFile(file: string, totalBytes: number): Promise<void> {
  const { size } = await stat(file);
  if (size < totalBytes) {
    throw new LocalEngineError(
      'download_failed',
      `The download ended with ${size} of ${totalBytes} bytes. Run the pull again to resume it.`,
    );
  }
  if (size > totalBytes) await truncate(file, totalBytes);
}

/** One quick request first, so being offline is a clear error at once, not minutes of retries. */
async function checkReachable(url: string, signal?: AbortSignal): Promise<void> {
  let response: Response;
  try {
    const timeout = AbortSignal.timeout(15_000);
    response = await fetch(url, {
      method: 'HEAD',
      redirect: 'follow',
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
  } catch (error) {
    const host = new URL(url).host;
    throw new LocalEngineError(
      'offline',
      `Cannot reach ${host} (${errorMessage(error)}${causeCode(error)}). You seem to be offline: ` +
        'models download only when a network is available. Offline, copy a .gguf file into the ' +
        'models folder or pass --model-path.',
      { cause: error },
    );
  }
  if (!response.ok) {
    throw new LocalEngineError(
      'download_failed',
      `${url} answered HTTP ${response.status} ${response.statusText}`,
    );
  }
}

function causeCode(error: unknown): string {
  const cause = (error as { cause?: { code?: string } }).cause;
  return cause?.code ? `: ${cause.code}` : '';
}

export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The regular files (or links to one) named *.gguf: a FIFO or device would block a read. */
async function ggufFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => []);
  const files: string[] = [];
  for (const name of names.filter((f) => f.toLowerCase().endsWith('.gguf')).sort()) {
    const info = await stat(path.join(dir, name)).catch(() => undefined);
    if (info?.isFile()) files.push(name);
  }
  return files;
}

async function mustExist(file: string, from: string): Promise<string> {
  const resolved = path.resolve(file);
  try {
    if ((await stat(resolved)).isFile()) return resolved;
  } catch {}
  throw new LocalEngineError(
    'model_not_found',
    `${from} points to ${resolved}, which is not a file`,
  );
}

function gb(bytes: number): string {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : `${Math.round(bytes / 1e6)} MB`;
}
