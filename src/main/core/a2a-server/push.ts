/**
 * Push notifications (A2A §4.3) sent through the guarded fetch: a client names where its task's
 * updates go, and Pincer posts each one there, but a URL at a loopback, private or link-local
 * address is refused unless the operator granted that address (`--a2a-push-hosts`), so a caller
 * cannot turn the server into a way into the network it sits in. One task's updates go in order.
 */

import type { StreamResponse } from '@a2a-js/sdk';
import { A2A_CONTENT_TYPE, type Task } from '@a2a-js/sdk';
import {
  type PushNotificationSender,
  type PushNotificationStore,
  type ServerCallContext,
  V1PushNotificationSerializer,
} from '@a2a-js/sdk/server';
import { guardedFetch } from '../a2a/index.js';

const TOKEN_HEADER = 'X-A2A-Notification-Token';
const SEND_TIMEOUT_MS = 5_000;

export class GuardedPushSender implements PushNotificationSender {
  private readonly fetch: typeof fetch;
  private readonly serializer = new V1PushNotificationSerializer();
  private readonly chains = new Map<string, Promise<void>>();

  constructor(
    private readonly store: PushNotificationStore,
    grants: readonly string[],
    private readonly onError: (message: string) => void = () => undefined,
  ) {
    this.fetch = guardedFetch(grants);
  }

  async send(update: StreamResponse, context: ServerCallContext, task?: Task): Promise<void> {
    const payload = update.payload;
    if (!payload) return;
    const taskId = payload.$case === 'task' ? payload.value.id : payload.value.taskId;
    if (!taskId) return;
    const configs = await this.store.load(taskId, context);
    if (!configs.length) return;
    const { body, contentType } = this.serializer.serialize(update, task);
    const previous = this.chains.get(taskId) ?? Promise.resolve();
    const next = previous.then(async () => {
      await Promise.all(
        configs.map(async (config) => {
          try {
            const response = await this.fetch(config.url, {
              method: 'POST',
              headers: {
                'content-type': contentType || A2A_CONTENT_TYPE,
                ...(config.token ? { [TOKEN_HEADER]: config.token } : {}),
                ...(config.authentication?.credentials
                  ? {
                      authorization: `${config.authentication.scheme || 'Bearer'} ${config.authentication.credentials}`,
                    }
                  : {}),
              },
              body,
              signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
            });
            await response.body?.cancel();
          } catch (error) {
            this.onError(
              `push notification for task ${taskId} not sent: ${error instanceof Error ? error.message : String(error)}`,
            );
          }
        }),
      );
    });
    this.chains.set(taskId, next);
    await next;
    if (this.chains.get(taskId) === next) this.chains.delete(taskId);
  }
}
