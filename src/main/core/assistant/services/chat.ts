/**
 * `chat.*` and `runs.*`: a message (or typed tool calls) becomes a run of the agent's runtime;
 * its events reach every UI as they happen; finished runs are read back through the records.
 */

import type { RunEventView } from '../../../../shared/ipc-schemas.js';
import { decodeImages, imageBlocks, type ModelOptions } from '../../agent/index.js';
import type { RunEvent } from '../../runtime/index.js';
import type { MessageId, RunId, SessionId } from '../../terms.js';
import { directCallContext, readTypedInput } from '../../toolcall/index.js';
import { messageWithAttachments } from '../attachments.js';
import type { RunRecords } from '../run-records.js';
import { type ChatService, InvalidRequest } from '../types.js';
import { clip } from '../views.js';
import { type AssistantParts, requireSession } from './parts.js';

export interface ChatDeps {
  records: RunRecords;
  /** The picker: a new conversation keeps the model in force when it starts. */
  picker: Pick<ModelOptions, 'selectedId'>;
  /** The secret names a typed call may name as `$env` (never their values). */
  secretNames(): readonly string[];
  /** Told when a run ends (a context size chosen during the reply may now reload the engine). */
  runEnded(): void;
}

/** Events carry their session and the tool's screened output: nothing is looked up to show them. */
const view = (event: RunEvent): RunEventView =>
  (event.type === 'tool.finished'
    ? { ...event, output: clip(event.output) }
    : event) as RunEventView;

export function chatService(
  { agent, book, emit, onClose }: AssistantParts,
  { records, picker, secretNames, runEnded }: ChatDeps,
): ChatService {
  const { runtime, models } = agent;
  onClose(
    agent.onRunEvent((event) =>
      emit({ topic: 'run', sessionId: event.session_id, event: view(event) }),
    ),
  );

  return {
    send({ sessionId, text: typedText, fromMessageId, attachments, images: attachedImages }) {
      const isNew = !sessionId;
      if (sessionId) requireSession(book, sessionId);
      // `@fs/list{path="."}` typed in the chat runs the tools directly, still under policy; an
      // attached file's content is never read as a tool call.
      const typed = readTypedInput(typedText);
      const text = messageWithAttachments(typedText, attachments ?? []);
      if (typed.kind === 'invalid') {
        const { line, column, detail } = typed.error;
        throw new InvalidRequest(`tool call, line ${line}, column ${column}: ${detail}`);
      }
      // Checked here whatever the window checked: the bytes, the limits, and the model in force
      // (prepareSend put this conversation's model in force) must take images.
      const images = imageBlocks(decodeImages(attachedImages ?? []), {
        takesImages: models.takesImages,
        label: models.label(),
      });
      if (images.length > 0 && typed.kind === 'calls')
        throw new InvalidRequest(
          'images go with a message to the model, not with typed tool calls',
        );
      const handle = runtime.start({
        text,
        ...(images.length > 0 ? { images } : {}),
        sessionId: sessionId as SessionId | undefined,
        fromMessageId: fromMessageId as MessageId | null | undefined,
        ...(typed.kind === 'calls'
          ? {
              calls: {
                program: typed.program,
                context: directCallContext({
                  secretNames: secretNames(),
                  secretValues: agent.redactor.values(),
                  ctx: { today: new Date().toISOString().slice(0, 10) },
                }),
              },
            }
          : {}),
      });
      // A new conversation keeps the model it started with.
      if (isNew && picker.selectedId) book.setSessionModel(handle.sessionId, picker.selectedId);
      // Every send changes a session's busy state (and a new one appears).
      emit({ topic: 'sessions.changed' });
      void handle.done.finally(() => {
        emit({ topic: 'sessions.changed' });
        runEnded();
      });
      return { runId: handle.runId, sessionId: handle.sessionId };
    },
    cancel(runId) {
      const handle = runtime.handle(runId as RunId);
      if (!handle) return false;
      handle.cancel();
      return true;
    },
    async finished(runId) {
      await runtime.handle(runId as RunId)?.done;
    },
    liveEvents(runId) {
      const handle = runtime.handle(runId as RunId);
      if (!handle) return [];
      return handle.events.events.map(view);
    },
    listRuns: (filter = {}) => records.list(filter),
    run: (runId) => records.detail(runId),
  };
}
