/**
 * `approvals.*` and `inputs.*`: what a run waits on a person for, as the UI shows it. Owns the
 * approval previews (worked out once per approval: they read the file a write would change) and
 * the hosts a person already let a fetch reach; the broker decides, this only shows and answers.
 */

import os from 'node:os';
import type { PendingApprovalView, PendingInputView } from '../../../../shared/ipc-schemas.js';
import type { PendingApproval, PendingInput } from '../../policy/index.js';
import { settingsFromManifest } from '../../sandbox/index.js';
import { approvalPreview } from '../approval-preview.js';
import type { ApprovalsService } from '../types.js';
import type { AssistantParts } from './parts.js';

type Preview = Pick<PendingApprovalView, 'preview' | 'risk'>;
const noPreview = (): Preview => ({ preview: null, risk: { destructive: false, reasons: [] } });

export function approvalsService(
  { agent, emit, onClose }: AssistantParts,
  tierOf: (tool: string) => PendingApprovalView['tier'],
): ApprovalsService {
  const { governance } = agent;
  const { scanner, broker, inputs } = governance;
  const previews = new Map<string, Preview>();
  const knownHosts = new Set<string>();
  const sandboxSettings = settingsFromManifest(agent.claw, {
    workspace: governance.workspace,
    dataDir: agent.dataDir,
  });

  const previewOf = async (pending: PendingApproval) => {
    const found = await approvalPreview(pending.call, {
      workspace: governance.workspace,
      sandbox: sandboxSettings,
      knownHosts,
      // The full path a person must judge, the home folder written as ~.
      showPath: (text) => text.split(os.homedir()).join('~'),
    }).catch(noPreview);
    // What a person reads is screened like the arguments are.
    const screened = scanner.redactValue(found);
    previews.set(pending.id, screened);
    return screened;
  };
  const approvalView = (pending: PendingApproval): PendingApprovalView => ({
    ...(previews.get(pending.id) ?? noPreview()),
    id: pending.id,
    runId: pending.runId,
    sessionId: pending.sessionId,
    call: scanner.redactValue(pending.call),
    reason: pending.reason,
    rule: pending.rule ?? null,
    tier: tierOf(pending.call.name),
    // A call whose preview is destructive is asked about every time.
    sessionApprovable: pending.sessionApprovable && !previews.get(pending.id)?.risk.destructive,
    sessionScope: scanner.redactValue(pending.sessionScope?.label ?? null),
    expiresAt: pending.expiresAt ?? null,
    prediction: pending.prediction ? scanner.redactValue(pending.prediction) : null,
  });
  // A server's form: its texts are the server's, screened like tool output before a person reads them.
  const inputView = (pending: PendingInput): PendingInputView =>
    scanner.redactValue({
      id: pending.id,
      runId: pending.runId,
      sessionId: pending.sessionId,
      callId: pending.callId ?? null,
      tool: pending.tool ?? null,
      source: pending.source,
      message: pending.message,
      fields: pending.fields,
      sensitive: pending.sensitive === true,
      warning: pending.warning ?? null,
      expiresAt: pending.expiresAt,
    });

  onClose(
    broker.onRequest((pending) => {
      void previewOf(pending).then(() =>
        emit({ topic: 'approval.requested', approval: approvalView(pending) }),
      );
    }),
  );
  onClose(
    broker.onResolved((id, answer) => {
      const preview = previews.get(id)?.preview;
      if (answer.approved && preview?.kind === 'fetch' && preview.host)
        knownHosts.add(preview.host);
      previews.delete(id);
      emit({ topic: 'approval.resolved', id, approved: answer.approved, by: answer.by });
    }),
  );
  onClose(
    inputs.onRequest((pending) => emit({ topic: 'input.requested', input: inputView(pending) })),
  );
  onClose(
    inputs.onResolved((pending, outcome) =>
      emit({
        topic: 'input.resolved',
        id: pending.id,
        action: outcome.answer.action,
        by: outcome.by,
      }),
    ),
  );

  return {
    pendingApprovals: () => broker.pending().map(approvalView),
    resolveApproval(id, verdict, reason) {
      if (verdict === 'approve-for-session' && previews.get(id)?.risk.destructive)
        return 'not_session_approvable';
      // `by` reaches the model with a denial ("not approved (ui: reason)"), so the reason does too.
      return broker.resolve(id, verdict, reason ? `ui: ${reason}` : 'ui');
    },
    pendingInputs: () => inputs.pending().map(inputView),
    resolveInput: (id, answer) => inputs.resolve(id, answer, 'ui'),
  };
}
