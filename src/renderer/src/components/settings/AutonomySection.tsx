/** The autonomy level (kept across restarts) and the policy rules in force. */
import { useCallback } from 'react';
import type { Autonomy, PoliciesView } from '../../../../shared/ipc';
import { useBridge } from '../../lib/bridge-context';
import { useLoad } from './use-load';

const AUTONOMY_TEXT: Record<Autonomy, string> = {
  observer: 'No tools at all: Pincer only talks.',
  supervised: 'Anything with a side effect asks you first, even where a rule allows it.',
  autonomous: 'The policy rules alone decide; Unsafe tools still ask every time.',
};

export function AutonomySection() {
  const bridge = useBridge();
  const [policies, error, , setPolicies] = useLoad<PoliciesView>(
    useCallback(() => bridge.invoke('policies.get', {}), [bridge]),
  );
  if (error) return <p className="error-banner">{error}</p>;
  if (!policies) return <p className="muted">Loading…</p>;
  return (
    <div className="settings-section">
      <fieldset className="autonomy">
        <legend>Autonomy level</legend>
        {(['observer', 'supervised', 'autonomous'] as const).map((level) => (
          <label
            key={level}
            className={`card radio${policies.autonomy === level ? ' active' : ''}`}
          >
            <input
              type="radio"
              name="autonomy"
              value={level}
              checked={policies.autonomy === level}
              onChange={async () =>
                setPolicies(await bridge.invoke('policies.setAutonomy', { autonomy: level }))
              }
            />
            <span>
              <strong>{level}</strong>
              {policies.manifestAutonomy === level && <span className="badge">manifest</span>}
              <span className="muted block">{AUTONOMY_TEXT[level]}</span>
            </span>
          </label>
        ))}
        <p className="muted small-text">
          Your choice is kept when Pincer restarts; the manifest (claw.yaml) keeps its own level,
          marked "manifest", which `pincer run` and `pincer chat` use.
        </p>
      </fieldset>
      <h3>Policy rules</h3>
      <p className="muted">First match wins; nothing matching means deny.</p>
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th>#</th>
              <th>rule</th>
              <th>action</th>
              <th>scope</th>
              <th>reason</th>
            </tr>
          </thead>
          <tbody>
            {policies.rules.map((rule, i) => (
              <tr key={`${rule.policy}/${rule.id}`}>
                <td>{i + 1}</td>
                <td>
                  <code>
                    {rule.policy}/{rule.id}
                  </code>
                </td>
                <td>
                  <span className={`badge action-${rule.action}`}>{rule.action}</span>
                </td>
                <td>{rule.scope}</td>
                <td>{rule.reason ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
