/**
 * `settings.*`, `policies.*` and `workspace.*`: what the user sets for the whole app. Settings
 * live in the session book; this puts them in force: the system prompt and temperature on the
 * agent, the context size on the model switch, the autonomy level (kept across restarts).
 */

import { stat } from 'node:fs/promises';
import type { Autonomy, PoliciesView, Settings } from '../../../../shared/ipc-schemas.js';
import { AutonomySchema } from '../../../../shared/ipc-schemas.js';
import { policyRules } from '../../ckp/index.js';
import { ConfinementError, confine } from '../../workspace-fs/index.js';
import { InvalidRequest, NotFound, type SettingsService } from '../types.js';
import type { AssistantParts } from './parts.js';

export function settingsService(
  { agent, book, emit }: AssistantParts,
  /** Reloads the local engine with a new context size once nothing uses it. */
  reloadWhenFree: () => Promise<void>,
): SettingsService {
  const { autonomy, models, governance, claw } = agent;
  const applyPreferences = ({ systemPrompt, temperature }: Settings) =>
    agent.setPreferences({ systemPrompt, temperature });
  applyPreferences(book.settings());
  // The context size chosen in Settings holds from the first load on.
  models.setContextSize(book.settings().contextSize ?? undefined);
  // The level chosen in Settings outlives a restart; a stored value that is no level is ignored.
  const kept = AutonomySchema.safeParse(book.kept<{ level: Autonomy }>('autonomy').level);
  if (kept.success) autonomy.set(kept.data);

  const policies = (): PoliciesView => ({
    autonomy: autonomy.level,
    manifestAutonomy: autonomy.manifestLevel,
    rules: policyRules(claw).map((rule) => ({
      policy: rule.policy,
      id: rule.id,
      action: rule.action,
      scope: rule.scope,
      reason: rule.reason ?? null,
    })),
  });

  return {
    settings: () => book.settings(),
    updateSettings(patch) {
      const before = book.settings();
      const next = book.saveSettings(patch);
      applyPreferences(next);
      if (next.contextSize !== before.contextSize) {
        models.resize(next.contextSize ?? undefined);
        void reloadWhenFree();
        emit({ topic: 'models.changed' });
      }
      emit({ topic: 'settings.changed', settings: next });
      return next;
    },
    policies,
    setAutonomy(level) {
      autonomy.set(level);
      book.keep('autonomy', { level });
      return policies();
    },
    workspace: () => governance.workspace,
    async workspaceTarget(relative) {
      // Tool cards name files relative to the workspace; a path out of it (.., a link) is refused.
      const target = await confine(governance.workspace, relative ?? '.').catch((error) => {
        throw error instanceof ConfinementError ? new InvalidRequest(error.message) : error;
      });
      const found = await stat(target).catch(() => undefined);
      if (!found) throw new NotFound(`"${relative ?? '.'}" is not in the workspace`);
      return { path: target, isFolder: found.isDirectory() };
    },
  };
}
