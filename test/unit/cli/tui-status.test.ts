/** The dashboard's status facts: cost as known, context against the window, rows that fit. */
import { describe, expect, it } from 'vitest';
import {
  contextText,
  costText,
  type StatusFacts,
  statusRows,
} from '../../../src/main/cli/tui/StatusBar.js';
import type { ModelsState } from '../../../src/shared/ipc.js';

const models = (extra: Partial<ModelsState>): ModelsState => ({
  active: 'local/Qwen2.5-7B-Instruct-Q4_K_M.gguf',
  kind: 'local',
  loaded: true,
  catalog: [],
  otherFiles: [],
  options: [],
  selectedId: null,
  defaultId: null,
  priced: true,
  recommended: null,
  machineRamBytes: 0,
  contextWindow: 8192,
  localModel: null,
  ...extra,
});

describe('status facts', () => {
  it('says unknown for an unpriced model, $0 on the local engine, the figure once spent', () => {
    expect(costText(models({ kind: 'remote', priced: false }), 0)).toBe('unknown');
    expect(costText(models({}), 0)).toBe('$0 (local)');
    expect(costText(models({ kind: 'remote' }), 0)).toBe('$0');
    expect(costText(models({ kind: 'remote', priced: false }), 0.5)).toBe('$0.50');
    expect(costText(null, 0)).toBe('unknown');
  });

  it('reads tokens against the window, and ? where the window is unknown', () => {
    expect(contextText(1234, 8192)).toBe('1,234/8,192 (15%)');
    expect(contextText(0, null)).toBe('0/?');
  });

  it('wraps onto more rows as the terminal narrows, and not as the figures grow', () => {
    const facts = (contextTokens: number, latencyMs: number): StatusFacts => ({
      models: models({}),
      info: null,
      lastTurn: { model: 'local/x.gguf', contextTokens, costUsd: 0, latencyMs },
      sessionCost: 0,
      link: 'connected',
      where: 'http://127.0.0.1:41234',
    });
    expect(statusRows(facts(0, 50), 200)).toBe(2); // one row of facts, one of keys
    expect(statusRows(facts(0, 50), 80)).toBe(3);
    expect(statusRows(facts(0, 50), 60)).toBeGreaterThanOrEqual(3);
    for (const width of [80, 110, 130]) {
      expect(statusRows(facts(8000, 999), width)).toBe(statusRows(facts(1, 5), width));
    }
  });
});
