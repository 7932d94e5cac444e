/**
 * The manifest's swarm, opened: its settings and the coordination backend it names. The `nats`
 * backend's credentials are secret names, resolved here through the secret store (keychain,
 * vault, environment); their values go into the connection and nowhere else.
 */
import type { Primitive } from '../ckp/index.js';
import type { SecretStore } from '../secrets/index.js';
import { type SwarmSettings, swarmSettings } from './coordinator.js';
import { InProcessBackend } from './in-process.js';
import { NatsBackend, type NatsSettings } from './nats.js';
import { type BackendOptions, type SwarmBackend, SwarmError } from './types.js';

export interface OpenedSwarm {
  settings: SwarmSettings;
  backend: SwarmBackend;
}

export async function openSwarm(
  swarm: Primitive<'Swarm'> | undefined,
  secrets: SecretStore,
  options: Partial<BackendOptions> = {},
): Promise<OpenedSwarm> {
  if (!swarm) {
    throw new SwarmError(
      'unsupported',
      'the manifest declares no swarm (add a Swarm primitive under spec.swarm)',
    );
  }
  const settings = swarmSettings(swarm.name, swarm.spec);
  const { coordination } = swarm.spec;
  switch (coordination.backend) {
    case 'in-process':
      return { settings, backend: new InProcessBackend(options) };
    case 'nats': {
      const nats = coordination.nats ?? {};
      const secret = async (ref: string | undefined) => {
        if (!ref) return undefined;
        const value = await secrets.resolve(ref);
        if (value === undefined)
          throw new SwarmError('connection', `the secret "${ref}" for the NATS server is not set`);
        return value;
      };
      const servers = nats.servers ?? 'nats://127.0.0.1:4222';
      const connection: NatsSettings = {
        servers: Array.isArray(servers) ? servers : [servers],
        token: await secret(nats.token_ref),
        user: nats.user,
        pass: await secret(nats.password_ref),
        ...(nats.tls
          ? {
              tls: {
                caFile: nats.tls.ca_file,
                certFile: nats.tls.cert_file,
                keyFile: nats.tls.key_file,
              },
            }
          : {}),
        name: `pincer-${swarm.name}`,
      };
      return {
        settings,
        backend: await NatsBackend.connect(connection, {
          ...(nats.ack_wait_ms ? { ackWaitMs: nats.ack_wait_ms } : {}),
          ...(nats.peer_ttl_ms ? { peerTtlMs: nats.peer_ttl_ms } : {}),
          ...options,
        }),
      };
    }
    default:
      throw new SwarmError(
        'unsupported',
        `the ${coordination.backend} swarm backend is not supported (use nats or in-process)`,
      );
  }
}
