/**
 * Past runs and one run's trace: steps with timings, tokens and cost, tool calls, the audit.
 * Sub-agents (runs started by agents/delegate) sit under the run that started them.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import {
  errorText,
  formatCost,
  formatDuration,
  formatOrigin,
  formatTime,
  formatTokens,
} from '../../../shared/format';
import type { RunDetail, RunSummary } from '../../../shared/ipc';
import { useBridge, useCoreEvents } from '../lib/bridge-context';
import { ToolCard } from './ToolCard';

function OutcomeBadge({ run }: { run: RunSummary }) {
  const label = run.live ? 'running' : (run.outcome ?? 'unfinished');
  return <span className={`badge outcome-${run.live ? 'running' : run.outcome}`}>{label}</span>;
}

/** A run with the sub-agents it started (those in the list), oldest first. */
export interface RunNode {
  run: RunSummary;
  children: RunNode[];
}

/** Runs as a forest: each under its parent when the parent is listed, else at the top. */
export function runTree(runs: RunSummary[]): RunNode[] {
  const nodes = new Map(runs.map((run) => [run.id, { run, children: [] as RunNode[] }]));
  const roots: RunNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.run.parentRunId ? nodes.get(node.run.parentRunId) : undefined;
    (parent && parent !== node ? parent.children : roots).push(node);
  }
  for (const node of nodes.values())
    node.children.sort((a, b) => a.run.createdAt.localeCompare(b.run.createdAt));
  return roots;
}

/** A run's tokens and cost with those of every sub-agent under it. */
export function treeTotals(node: RunNode): { tokens: number; costUsd: number } {
  return node.children
    .map(treeTotals)
    .reduce(
      (sum, child) => ({ tokens: sum.tokens + child.tokens, costUsd: sum.costUsd + child.costUsd }),
      { tokens: node.run.inputTokens + node.run.outputTokens, costUsd: node.run.costUsd },
    );
}

/**
 * Calls `load` now, and again once after it settles when asked meanwhile: a burst of events
 * costs at most two requests.
 */
function useCoalesced(load: () => Promise<unknown>): () => void {
  const state = useRef({ busy: false, again: false });
  const latest = useRef(load);
  latest.current = load;
  return useCallback(() => {
    const s = state.current;
    if (s.busy) {
      s.again = true;
      return;
    }
    s.busy = true;
    const run = (): void => {
      void latest.current().finally(() => {
        if (s.again) {
          s.again = false;
          run();
        } else s.busy = false;
      });
    };
    run();
  }, []);
}

/** Run events after which a summary's figures change. */
const CHANGES_FIGURES = new Set(['run.started', 'run.finished', 'model.finished', 'tool.finished']);

function StepsTimeline({ detail }: { detail: RunDetail }) {
  const start = Date.parse(detail.run.createdAt);
  const end = Math.max(
    Date.parse(detail.run.updatedAt),
    ...detail.steps.map((s) => Date.parse(s.endedAt ?? s.startedAt)),
  );
  const span = Math.max(1, end - start);
  return (
    <ol className="timeline" aria-label="Steps">
      {detail.steps.map((step) => {
        const from = Date.parse(step.startedAt) - start;
        const took = step.endedAt ? Date.parse(step.endedAt) - Date.parse(step.startedAt) : null;
        return (
          <li key={step.id} className={`step step-${step.kind}`}>
            <span className="step-name">
              {step.idx + 1}. {step.kind === 'model' ? 'model call' : 'tools'}
            </span>
            <span className="step-bar" aria-hidden="true">
              <span
                ref={(el) => {
                  // Positioned through the CSSOM (the CSP forbids inline style attributes).
                  if (!el) return;
                  el.style.left = `${(from / span) * 100}%`;
                  el.style.width = `${Math.max(1, ((took ?? span - from) / span) * 100)}%`;
                }}
              />
            </span>
            <span className="step-figures">
              {formatDuration(took)}
              {step.kind === 'model' &&
                ` · ${formatTokens(step.inputTokens)}/${formatTokens(step.outputTokens)} tok · ${formatCost(step.costUsd)}`}
            </span>
          </li>
        );
      })}
    </ol>
  );
}

function SubAgents({ runs, onOpen }: { runs: RunSummary[]; onOpen: (runId: string) => void }) {
  return (
    <ul className="sub-agents" aria-label="Sub-agents">
      {runs.map((child) => (
        <li key={child.id} data-run-id={child.id}>
          <button type="button" className="link" onClick={() => onOpen(child.id)}>
            {child.goal || 'Deleted conversation'}
          </button>{' '}
          <OutcomeBadge run={child} />{' '}
          <span className="muted">
            {formatTokens(child.inputTokens + child.outputTokens)} tok · {formatCost(child.costUsd)}
          </span>
        </li>
      ))}
    </ul>
  );
}

function RunDetailView({ runId, onOpen }: { runId: string; onOpen: (runId: string) => void }) {
  const bridge = useBridge();
  const [detail, setDetail] = useState<RunDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCoalesced(() =>
    bridge
      .invoke('runs.get', { runId })
      .then((d) => {
        setDetail(d);
        setError(null);
      })
      .catch((cause: unknown) => setError(errorText(cause))),
  );
  useEffect(load, [load]);
  const childIds = useMemo(() => new Set(detail?.children.map((c) => c.id)), [detail]);
  useCoreEvents((event) => {
    if (event.topic !== 'run') return;
    const e = event.event;
    const mine = e.run_id === runId && (e.type === 'run.finished' || e.type === 'model.finished');
    const startedHere = e.type === 'run.started' && e.parent_run_id === runId;
    const childChanged = childIds.has(e.run_id) && CHANGES_FIGURES.has(e.type);
    if (mine || startedHere || childChanged) load();
  });
  if (error) return <p className="error-banner">{error}</p>;
  if (!detail) return <p className="muted pad">Loading the trace…</p>;
  const { run } = detail;
  return (
    <div className="run-detail">
      <header>
        <h2>{run.goal || 'Deleted conversation'}</h2>
        <OutcomeBadge run={run} />
      </header>
      <dl className="figures">
        {run.origin && (
          <div>
            <dt>from</dt>
            <dd data-testid="run-detail-origin">{formatOrigin(run.origin)}</dd>
          </div>
        )}
        <div>
          <dt>state</dt>
          <dd>{run.state}</dd>
        </div>
        <div>
          <dt>model calls</dt>
          <dd>{run.turns}</dd>
        </div>
        <div>
          <dt>tokens</dt>
          <dd>
            {formatTokens(run.inputTokens)} in · {formatTokens(run.outputTokens)} out
          </dd>
        </div>
        <div>
          <dt>cost</dt>
          <dd>{formatCost(run.costUsd)}</dd>
        </div>
        <div>
          <dt>duration</dt>
          <dd>{formatDuration(Date.parse(run.updatedAt) - Date.parse(run.createdAt))}</dd>
        </div>
      </dl>
      {run.reason && <p className="muted">Ended: {run.reason}</p>}
      {run.parentRunId && (
        <p className="muted">
          Sub-agent of{' '}
          <button
            type="button"
            className="link"
            onClick={() => run.parentRunId && onOpen(run.parentRunId)}
          >
            the run that delegated it
          </button>
        </p>
      )}
      {detail.children.length > 0 && (
        <>
          <h3>Sub-agents</h3>
          <SubAgents runs={detail.children} onOpen={onOpen} />
          <p className="muted" data-testid="run-detail-total">
            With sub-agents:{' '}
            {formatTokens(
              [run, ...detail.children].reduce((n, r) => n + r.inputTokens + r.outputTokens, 0),
            )}{' '}
            tok · {formatCost([run, ...detail.children].reduce((n, r) => n + r.costUsd, 0))}
          </p>
        </>
      )}
      <h3>Steps</h3>
      {detail.steps.length === 0 ? (
        <p className="muted">No steps recorded.</p>
      ) : (
        <StepsTimeline detail={detail} />
      )}
      <h3>Tool calls</h3>
      {detail.toolCalls.length === 0 ? (
        <p className="muted">No tools were called.</p>
      ) : (
        detail.toolCalls.map((call) => <ToolCard key={call.callId} call={call} />)
      )}
      <h3>Audit trail</h3>
      {detail.audit.length === 0 ? (
        <p className="muted">No audit rows for this run.</p>
      ) : (
        <div className="table-wrap">
          <table className="audit">
            <thead>
              <tr>
                <th>time</th>
                <th>event</th>
                <th>tool</th>
                <th>decision</th>
                <th>rule</th>
                <th>by</th>
                <th>status</th>
              </tr>
            </thead>
            <tbody>
              {detail.audit.map((row) => (
                <tr key={row.id}>
                  <td>{new Date(row.at).toLocaleTimeString()}</td>
                  <td>{row.event}</td>
                  <td>{row.tool ?? ''}</td>
                  <td>{row.decision ?? ''}</td>
                  <td>{row.rule ?? ''}</td>
                  <td>{row.approvalBy ?? ''}</td>
                  <td title={row.reason ?? undefined}>{row.status ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

function RunRow({
  node,
  depth,
  selected,
  collapsed,
  onSelect,
  onToggle,
}: {
  node: RunNode;
  depth: number;
  selected: string | null;
  collapsed: ReadonlySet<string>;
  onSelect: (runId: string) => void;
  onToggle: (runId: string) => void;
}) {
  const { run, children } = node;
  const open = !collapsed.has(run.id);
  const total = children.length > 0 ? treeTotals(node) : null;
  return (
    <li data-run-id={run.id} className={depth > 0 ? 'sub-agent' : undefined}>
      <div className="run-line">
        {children.length > 0 ? (
          <button
            type="button"
            className="run-toggle"
            aria-expanded={open}
            aria-label={`${open ? 'Hide' : 'Show'} ${children.length} sub-agent${children.length === 1 ? '' : 's'}`}
            onClick={() => onToggle(run.id)}
          >
            {open ? '▾' : '▸'}
          </button>
        ) : (
          <span className="run-toggle" aria-hidden="true" />
        )}
        <button
          type="button"
          className={`run-row${run.id === selected ? ' active' : ''}`}
          aria-current={run.id === selected ? 'true' : undefined}
          onClick={() => onSelect(run.id)}
        >
          <span className="run-goal">
            {depth > 0 && <span className="run-kind">sub-agent · </span>}
            {run.goal || 'Deleted conversation'}
          </span>
          {run.origin && (
            <span className="run-origin" data-testid="run-origin">
              {formatOrigin(run.origin)}
            </span>
          )}
          <span className="run-meta">
            <OutcomeBadge run={run} /> {formatTime(run.createdAt)} ·{' '}
            {formatTokens(run.inputTokens + run.outputTokens)} tok · {formatCost(run.costUsd)}
          </span>
          {total && (
            <span className="run-meta" data-testid="run-total">
              with sub-agents: {formatTokens(total.tokens)} tok · {formatCost(total.costUsd)}
            </span>
          )}
        </button>
      </div>
      {children.length > 0 && open && (
        <ul className="run-children">
          {children.map((child) => (
            <RunRow
              key={child.run.id}
              node={child}
              depth={depth + 1}
              selected={selected}
              collapsed={collapsed}
              onSelect={onSelect}
              onToggle={onToggle}
            />
          ))}
        </ul>
      )}
    </li>
  );
}

export function RunsView() {
  const bridge = useBridge();
  const [runs, setRuns] = useState<RunSummary[] | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const [error, setError] = useState<string | null>(null);
  const load = useCoalesced(() =>
    bridge
      .invoke('runs.list', { limit: 200 })
      .then((list) => {
        setRuns(list);
        setSelected((id) => id ?? list.find((run) => !run.parentRunId)?.id ?? list[0]?.id ?? null);
      })
      .catch((cause: unknown) => setError(errorText(cause))),
  );
  useEffect(load, [load]);
  useCoreEvents((event) => {
    if (event.topic === 'run' && CHANGES_FIGURES.has(event.event.type)) load();
  });
  const tree = useMemo(() => runTree(runs ?? []), [runs]);
  const toggle = useCallback((runId: string) => {
    setCollapsed((now) => {
      const next = new Set(now);
      if (!next.delete(runId)) next.add(runId);
      return next;
    });
  }, []);
  const open = useCallback(
    (runId: string) => {
      setSelected(runId);
      // Show the run in the list too: unfold the runs above it.
      const byId = new Map((runs ?? []).map((run) => [run.id, run]));
      setCollapsed((now) => {
        const next = new Set(now);
        const seen = new Set<string>();
        for (let up = byId.get(runId)?.parentRunId; up && !seen.has(up); ) {
          seen.add(up);
          next.delete(up);
          up = byId.get(up)?.parentRunId;
        }
        return next;
      });
    },
    [runs],
  );
  return (
    <section className="runs-view" aria-label="Runs">
      <div className="runs-list">
        <h2>Runs</h2>
        {error && <p className="error-banner">{error}</p>}
        {runs === null ? (
          <p className="muted pad">Loading…</p>
        ) : runs.length === 0 ? (
          <p className="muted pad">No runs yet: every message you send starts one.</p>
        ) : (
          <ul>
            {tree.map((node) => (
              <RunRow
                key={node.run.id}
                node={node}
                depth={0}
                selected={selected}
                collapsed={collapsed}
                onSelect={setSelected}
                onToggle={toggle}
              />
            ))}
          </ul>
        )}
      </div>
      <div className="runs-detail">
        {selected ? (
          <RunDetailView key={selected} runId={selected} onOpen={open} />
        ) : (
          <p className="muted pad">Pick a run.</p>
        )}
      </div>
    </section>
  );
}
