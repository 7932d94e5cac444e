/**
 * The local engine alone, for a surface that serves the model itself rather than an agent
 * (`pincer serve --openai`). Found the way the agent finds it; undefined, with how to get a
 * model, when there is none.
 */
import type { LocalEngine } from '../local/index.js';
import {
  localSetup,
  noModelHelp,
  prefixCacheDir,
  prefixCacheOption,
  resolveChatModel,
  type SkippedModel,
} from '../local/index.js';
import type { LocalModelSettings } from './model-choice.js';

export async function openLocalEngine(
  options: LocalModelSettings & {
    appDir: string;
    dataDir: string;
    modelPath?: string;
    env: Record<string, string | undefined>;
    onSkip?: (skipped: SkippedModel) => void;
  },
): Promise<LocalEngine | { missing: string }> {
  const { catalog, locations } = await localSetup(options.appDir, options.dataDir);
  const found = await resolveChatModel(catalog, locations, {
    modelPath: options.modelPath,
    env: options.env,
    onSkip: options.onSkip,
  });
  if (!found) return { missing: noModelHelp(catalog, locations) };
  const { LocalEngine } = await import('../local/engine.js');
  const engine = new LocalEngine({
    modelPath: found.path,
    runtime: { threads: options.threads },
    contextSize: options.contextSize,
    maxConversations: options.maxConversations ?? 1,
    idleTimeoutMs: 0,
    prefixCache: prefixCacheOption(prefixCacheDir(options.dataDir), options.prefixCacheBytes),
  });
  await engine.load();
  return engine;
}
