/**
 * Providers a person added from the app ("Add provider"), beside the manifest's: a name, a
 * protocol, an address, the name of the secret holding the key (never the key) and the models
 * the server listed when it was last asked. Kept in the profile database under its own
 * migration namespace.
 */
import type { Db } from '../storage/index.js';
import { type Migration, migrate, prepared } from '../storage/index.js';
import type { HttpProtocol } from './http-provider.js';

/** What a person picks in "Add provider"; each maps onto one wire protocol. */
export type ConnectionKind = 'openai' | 'anthropic' | 'gemini' | 'openai-compatible';

export const CONNECTION_PROTOCOL: Record<ConnectionKind, HttpProtocol> = {
  openai: 'openai-compatible',
  anthropic: 'anthropic',
  gemini: 'gemini',
  'openai-compatible': 'openai-compatible',
};

/** The vendor's own address; an OpenAI-compatible server (Ollama, LM Studio) must give one. */
export const CONNECTION_ENDPOINT: Record<ConnectionKind, string | undefined> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com/v1',
  gemini: 'https://generativelanguage.googleapis.com/v1beta',
  'openai-compatible': undefined,
};

/**
 * Whether a new connection's models take images unless the person says otherwise. OpenAI,
 * Anthropic and Gemini: on, because the chat models those services list today read images (a
 * model that does not answers the request with an error the chat shows). An OpenAI-compatible
 * server (Ollama, LM Studio, vLLM) mostly serves text-only models: off until the person turns it
 * on for a vision model. "Add provider" shows the choice with this default.
 */
export const CONNECTION_TAKES_IMAGES: Record<ConnectionKind, boolean> = {
  openai: true,
  anthropic: true,
  gemini: true,
  'openai-compatible': false,
};

export interface Connection {
  name: string;
  kind: ConnectionKind;
  endpoint: string;
  /** The secret holding the API key; null for a server that needs none. */
  keyName: string | null;
  models: string[];
  /** Its models take images (the person's choice when adding it). */
  takesImages: boolean;
}

/** The secret name a connection's key is stored under. */
export function connectionKeyName(name: string): string {
  return `pincer.provider.${name}`;
}

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'providers added from the app',
    up: `
      create table model_connections (
        name text primary key,
        kind text not null,
        endpoint text not null,
        key_name text,
        models text not null,
        added_at text not null
      );
    `,
  },
  {
    version: 2,
    description: 'whether a connection takes images',
    // Null on rows saved before: read as the kind's default.
    up: 'alter table model_connections add column takes_images integer',
  },
];

interface Row {
  name: string;
  kind: ConnectionKind;
  endpoint: string;
  key_name: string | null;
  models: string;
  takes_images: number | null;
}

const COLUMNS = 'name, kind, endpoint, key_name, models, takes_images';

export class ConnectionBook {
  constructor(private readonly db: Db) {
    migrate(db, 'connections', MIGRATIONS);
  }

  list(): Connection[] {
    const rows = prepared(
      this.db,
      `select ${COLUMNS} from model_connections order by name`,
    ).all() as Row[];
    return rows.map(fromRow);
  }

  get(name: string): Connection | undefined {
    const row = prepared(this.db, `select ${COLUMNS} from model_connections where name = ?`).get(
      name,
    ) as Row | undefined;
    return row ? fromRow(row) : undefined;
  }

  /** Adds or replaces the connection of this name. */
  save(connection: Connection): void {
    prepared(
      this.db,
      `insert into model_connections (${COLUMNS}, added_at)
         values (?, ?, ?, ?, ?, ?, ?)
         on conflict(name) do update set kind = excluded.kind, endpoint = excluded.endpoint,
           key_name = excluded.key_name, models = excluded.models,
           takes_images = excluded.takes_images`,
    ).run(
      connection.name,
      connection.kind,
      connection.endpoint,
      connection.keyName,
      JSON.stringify(connection.models),
      connection.takesImages ? 1 : 0,
      new Date().toISOString(),
    );
  }

  remove(name: string): boolean {
    return prepared(this.db, 'delete from model_connections where name = ?').run(name).changes > 0;
  }
}

function fromRow(row: Row): Connection {
  const models: unknown = JSON.parse(row.models);
  return {
    name: row.name,
    kind: row.kind,
    endpoint: row.endpoint,
    keyName: row.key_name,
    models: Array.isArray(models) ? models.filter((m): m is string => typeof m === 'string') : [],
    takesImages:
      row.takes_images === null ? CONNECTION_TAKES_IMAGES[row.kind] : row.takes_images === 1,
  };
}
