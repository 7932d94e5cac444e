/** Past runs and one run's trace: steps with timings, tokens and cost, tool calls, the audit. */
import { useCallback, useEffect, useState } from 'react';
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

function RunDetailView({ runId }: { runId: string }) {
  const bridge = useBridge();
  const [detail, setDetail] = useState<RunDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    bridge
      .invoke('runs.get', { runId })
      .then((d) => {
        setDetail(d);
        setError(null);
      })
      .catch((cause: unknown) => setError(errorText(cause)));
  }, [bridge, runId]);
  useEffect(load, [load]);
  useCoreEvents((event) => {
    if (
      event.topic === 'run' &&
      event.event.run_id === runId &&
      event.event.type === 'run.finished'
    )
      load();
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

export function RunsView() {
  const bridge = useBridge();
  const [runs, setRuns] = useState<RunSummary[] | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    bridge
      .invoke('runs.list', { limit: 200 })
      .then((list) => {
        setRuns(list);
        setSelected((id) => id ?? list[0]?.id ?? null);
      })
      .catch((cause: unknown) => setError(errorText(cause)));
  }, [bridge]);
  useEffect(load, [load]);
  useCoreEvents((event) => {
    if (
      event.topic === 'run' &&
      (event.event.type === 'run.started' || event.event.type === 'run.finished')
    )
      load();
  });
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
            {runs.map((run) => (
              <li key={run.id}>
                <button
                  type="button"
                  className={`run-row${run.id === selected ? ' active' : ''}`}
                  aria-current={run.id === selected ? 'true' : undefined}
                  onClick={() => setSelected(run.id)}
                >
                  <span className="run-goal">{run.goal || 'Deleted conversation'}</span>
                  {run.origin && (
                    <span className="run-origin" data-testid="run-origin">
                      {formatOrigin(run.origin)}
                    </span>
                  )}
                  <span className="run-meta">
                    <OutcomeBadge run={run} /> {formatTime(run.createdAt)} ·{' '}
                    {formatTokens(run.inputTokens + run.outputTokens)} tok ·{' '}
                    {formatCost(run.costUsd)}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        )}
      </div>
      <div className="runs-detail">
        {selected ? (
          <RunDetailView key={selected} runId={selected} />
        ) : (
          <p className="muted pad">Pick a run.</p>
        )}
      </div>
    </section>
  );
}
