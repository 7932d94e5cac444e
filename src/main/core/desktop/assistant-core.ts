/**
 * The desktop shell's view of the headless assistant: approvals, run lifecycle events,
 * cancel, new chat, close. Approvals answered from a native dialog go through the assistant's
 * own resolveApproval, so the UI, the CLI and the dialog share one broker entry.
 */
import type { Assistant } from '../assistant/index.js';
import type { AgentActivity } from './activity.js';
import type { RoutedApproval } from './approval-dialog.js';
import type { ApprovalSource } from './approval-router.js';
import type { RunLifecycleEvent } from './run-events.js';

export type AssistantForShell = Pick<
  Assistant,
  'subscribe' | 'pendingApprovals' | 'resolveApproval' | 'cancel' | 'requestNewChat' | 'close'
>;

export interface ShellCoreParts {
  approvals: ApprovalSource;
  onRunEvent(listener: (event: RunLifecycleEvent) => void): () => void;
  cancelRun(runId: string): void;
  newChat(): void;
  close(): Promise<void>;
}

export function shellCoreFromAssistant(assistant: AssistantForShell): ShellCoreParts {
  return {
    approvals: {
      onRequest: (listener: (pending: RoutedApproval) => void) =>
        assistant.subscribe((event) => {
          if (event.topic === 'approval.requested') listener(event.approval);
        }),
      onResolved: (listener: (id: string) => void) =>
        assistant.subscribe((event) => {
          if (event.topic === 'approval.resolved') listener(event.id);
        }),
      pending: () => assistant.pendingApprovals(),
      // The assistant records answers as "ui: <reason>": this one reads "ui: native dialog".
      resolve: (id, verdict) => assistant.resolveApproval(id, verdict, 'native dialog'),
    },
    onRunEvent: (listener) =>
      assistant.subscribe((event) => {
        if (event.topic === 'run') listener(event.event);
      }),
    cancelRun: (runId) => {
      assistant.cancel(runId);
    },
    // The UI opens a draft; a session exists once the first message is sent, as with Alt+N.
    newChat: () => assistant.requestNewChat(),
    close: () => assistant.close(),
  };
}

/**
 * The assistant as the IPC handlers see it in the desktop app: a message sent while the app is
 * quitting is refused (AgentUnavailableError, a coded IPC error) instead of starting a run the
 * drain would only cancel. Everything else passes through unchanged.
 */
export function admittingAssistant<A extends Pick<Assistant, 'send'>>(
  assistant: A,
  activity: AgentActivity,
): A {
  return {
    ...assistant,
    send: (options: Parameters<Assistant['send']>[0]) => {
      activity.admit('user');
      return assistant.send(options);
    },
  };
}
