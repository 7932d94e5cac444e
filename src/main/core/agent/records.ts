/**
 * The agent's records without the agent: the run store and the audit trail on the profile
 * database, for commands that only read them (`pincer runs list/show`, `pincer audit`). No
 * model, sandbox or memory is opened.
 */

import { ContentScanner } from '../policy/index.js';
import { AuditLog, RunStore } from '../runtime/index.js';
import { openDatabase, privateProfileDatabase } from '../storage/index.js';

export interface AgentRecords {
  store: RunStore;
  audit: AuditLog;
  close(): void;
}

export function openAgentRecords(dataDir: string): AgentRecords {
  const db = openDatabase(privateProfileDatabase(dataDir));
  return {
    store: new RunStore(db),
    audit: new AuditLog(db, new ContentScanner()),
    close: () => {
      db.close();
    },
  };
}
