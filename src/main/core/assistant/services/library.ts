/**
 * `skills.*` and `memory.*`: the agent's skills and what its memory finds; what the user adds
 * in Settings goes through the user library (`library.ts`).
 */

import { UserLibrary } from '../library.js';
import type { LibraryService } from '../types.js';
import { clip } from '../views.js';
import type { AssistantParts } from './parts.js';

export function libraryService({ agent }: AssistantParts): LibraryService {
  const { memory } = agent;
  return {
    skills: () =>
      memory.skills.list().map((skill) => ({
        name: skill.name,
        description: skill.description,
        enabled: skill.enabled,
        trust: skill.trust,
      })),
    async searchMemory(query) {
      const found = await memory.store.search(query, { limit: 10 });
      return {
        hits: found.hits.map((hit) => ({
          text: clip(hit.text, 2000),
          score: hit.score,
          source: hit.source,
        })),
        notice: found.notice ?? null,
      };
    },
    library: new UserLibrary(agent.dataDir, memory),
  };
}
