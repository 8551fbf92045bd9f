// Waiting for a request from inside another Restate handler: an awakeable woken by the object,
// trusted only once the object's stored record says the request is final.
import type * as restate from '@restatedev/restate-sdk';
import { awaitStored } from './internal/await-stored.js';
import type { RequestRecord } from './request-record.js';
import type { RequestsHandlers, RequestsObject } from './requests-types.js';

/**
 * How many wake-ups without a final record {@link awaitRequest} accepts by default before it gives
 * up (`forged_wakeups`).
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_WAKEUPS } from '@parley/restate';
 *
 * console.log(DEFAULT_MAX_WAKEUPS); // 16
 * ```
 */
export const DEFAULT_MAX_WAKEUPS = 16;

/**
 * Waits, durably, until correlated request `requestId` of a {@link defineRequests} object is final,
 * and returns its stored record. Call it inside a Restate handler (a workflow, a service): the wait
 * is an awakeable the object resolves when the request settles, and survives restarts of the app and
 * of the server. A wake-up is only a hint: the record is read back from the object, so a resolve of
 * the awakeable sent by anyone else (the ingress API, a replayed id) decides nothing, and neither
 * does a rejection of it; only a cancellation of the waiting invocation ends the wait early.
 *
 * @throws a Restate `TerminalError` (the invocation fails, not retried) whose `cause` is a
 * ParleyRestateError: `forged_wakeups` after `maxWakeups` wake-ups without a final record,
 * `unknown_request` for a request never opened, `too_many_watchers` when it has `maxWatchers` waiters.
 * @example
 * ```ts
 * import * as restate from '@restatedev/restate-sdk';
 * import { shutdownProtocol } from '@parley/correlate';
 * import { awaitRequest, defineRequests } from '@parley/restate';
 *
 * const requests = defineRequests({ name: 'requests', protocols: [shutdownProtocol] });
 * const lead = restate.service({
 *   name: 'lead',
 *   handlers: {
 *     shutdown: async (ctx: restate.Context, id: string) => (await awaitRequest(ctx, requests, id)).state,
 *   },
 * });
 * console.log(lead.name); // lead
 * ```
 */
export async function awaitRequest(
  ctx: restate.Context,
  requests: RequestsObject<string>,
  requestId: string,
  options: { readonly maxWakeups?: number } = {},
): Promise<RequestRecord> {
  const client = ctx.objectClient<RequestsHandlers>({ name: requests.name }, requestId);
  return awaitStored(ctx, {
    what: `request "${requestId}"`,
    details: { requestId },
    maxWakeups: options.maxWakeups ?? DEFAULT_MAX_WAKEUPS,
    watch: (id) => client.watch(id),
    read: async () => {
      const record = await client.get();
      return record !== null && record.state !== 'pending' ? record : undefined;
    },
  });
}
