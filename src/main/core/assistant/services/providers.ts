/**
 * `providers.*`: the manifest's providers and the servers added in the app. Owns which key a
 * server is asked with: the one typed, else the saved connection's, and that only at the
 * address it was saved with.
 */

import type { ConnectionView } from '../../../../shared/ipc-schemas.js';
import { providerChain } from '../../ckp/index.js';
import {
  CONNECTION_ENDPOINT,
  CONNECTION_PROTOCOL,
  CONNECTION_TAKES_IMAGES,
  type Connection,
  type ConnectionBook,
  connectionKeyName,
  listServerModels,
} from '../../models/index.js';
import { InvalidRequest, NotFound, type ProviderRequest, type ProvidersService } from '../types.js';
import type { AssistantParts } from './parts.js';

const connectionView = (connection: Connection): ConnectionView => ({ ...connection });

export function providersService(
  { agent, emit }: AssistantParts,
  connections: ConnectionBook,
): ProvidersService {
  const { claw, secrets, models } = agent;

  /** The key to ask a server with: the one given, else the saved connection's (its own address only). */
  const connectionKey = async (
    request: Pick<ProviderRequest, 'name' | 'endpoint' | 'key'>,
  ): Promise<{ key: string | undefined; endpoint: string | undefined }> => {
    if (request.key || !request.name) return { key: request.key, endpoint: request.endpoint };
    const saved = connections.get(request.name);
    if (!saved) return { key: undefined, endpoint: request.endpoint };
    if (request.endpoint && request.endpoint !== saved.endpoint) {
      throw new InvalidRequest(
        `a saved key is only sent to the address it was saved with (${saved.endpoint}); enter the key again for a new address`,
      );
    }
    const found = saved.keyName ? await secrets.get(saved.keyName) : undefined;
    return { key: found?.value, endpoint: saved.endpoint };
  };

  return {
    async providers() {
      const names = new Set((await secrets.list()).map((entry) => entry.name));
      const providers = claw.providers.map((provider) => {
        const ref = provider.spec.auth?.secret_ref ?? null;
        return {
          name: provider.name,
          protocol: provider.spec.protocol,
          model: provider.spec.model,
          endpoint: provider.spec.endpoint,
          secretRef: ref,
          hasKey: ref !== null && (names.has(ref) || process.env[ref] !== undefined),
          fallback: providerChain(claw, provider)
            .slice(1)
            .map((p) => p.name),
        };
      });
      return {
        providers,
        connections: connections.list().map(connectionView),
        routing: `chat: ${models.label()}`,
      };
    },
    async testProvider(request) {
      const { key, endpoint } = await connectionKey(request);
      return listServerModels({
        protocol: CONNECTION_PROTOCOL[request.kind],
        endpoint: endpoint ?? CONNECTION_ENDPOINT[request.kind],
        apiKey: key,
      });
    },
    async addProvider(request) {
      const { key, endpoint: given } = await connectionKey(request);
      const endpoint = given ?? CONNECTION_ENDPOINT[request.kind];
      if (!endpoint) throw new InvalidRequest('an OpenAI-compatible server needs its address');
      if (!key && request.kind !== 'openai-compatible')
        throw new InvalidRequest(`${request.kind} needs an API key`);
      // Saved only once the server answered: a wrong address or key is said now, not mid-chat.
      const listed = await listServerModels({
        protocol: CONNECTION_PROTOCOL[request.kind],
        endpoint,
        apiKey: key,
      });
      const keyName = key ? connectionKeyName(request.name) : null;
      if (key && keyName) await secrets.set(keyName, key);
      const connection: Connection = {
        name: request.name,
        kind: request.kind,
        endpoint,
        keyName,
        models: listed,
        takesImages: request.takesImages ?? CONNECTION_TAKES_IMAGES[request.kind],
      };
      connections.save(connection);
      emit({ topic: 'models.changed' });
      return connectionView(connection);
    },
    async removeProvider(name) {
      const saved = connections.get(name);
      if (!saved) throw new NotFound(`no provider "${name}"`);
      connections.remove(name);
      if (saved.keyName) await secrets.delete(saved.keyName).catch(() => undefined);
      emit({ topic: 'models.changed' });
    },
  };
}
