import path from 'node:path';
import { loadCatalog, type ModelCatalog } from './catalog.js';
import type { ModelLocations } from './model-manager.js';

/** Where an installation keeps its catalog and models. */
export interface LocalSetup {
  catalog: ModelCatalog;
  locations: ModelLocations;
}

/**
 * The catalog ships in the app's `models/` folder; downloads go to the data dir; a packaged
 * app may bundle GGUF files in `resources/models` (electron-builder extra resources).
 */
export async function localSetup(appDir: string, dataDir: string): Promise<LocalSetup> {
  const resourcesPath = (process as { resourcesPath?: string }).resourcesPath;
  return {
    catalog: await loadCatalog(path.join(appDir, 'models', 'catalog.json')),
    locations: {
      modelsDir: path.join(dataDir, 'models'),
      bundledDir: resourcesPath
        ? path.join(resourcesPath, 'models')
        : path.join(appDir, 'resources', 'models'),
    },
  };
}
