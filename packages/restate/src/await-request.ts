// Waiting for a request from inside another Restate handler: an awakeable woken by the object,
// trusted only once the object's stored record says the request is final.
import * as restate from '@restatedev/restate-sdk';
import { ParleyRestateError } from './errors.js';
import type { RequestRecord } from './request-record.js';
import type { RequestsHandlers, RequestsObject, WatchResult } from './requests-types.js';

/** The code Restate fails an awaited promise with when the invocation is cancelled. */
const CANCELLED = 409;

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
  const maxWakeups = options.maxWakeups ?? DEFAULT_MAX_WAKEUPS;
  const client = ctx.objectClient<RequestsHandlers>({ name: requests.name }, requestId);
  for (let wakeups = 0; ; wakeups++) {
    if (wakeups >= maxWakeups) {
      const text = `The wait for request "${requestId}" was woken ${maxWakeups} times without the request being final`;
      throw terminal(new ParleyRestateError('forged_wakeups', text, { details: { requestId, maxWakeups } }));
    }
    const { id, promise } = ctx.awakeable<unknown>();
    const watched: WatchResult = await client.watch(id);
    if (!watched.ok)
      throw terminal(new ParleyRestateError(watched.code, watched.message, { details: { requestId } }));
    if (!watched.watching) return watched.record;
    try {
      await promise; // a hint only: what it carries is not trusted
    } catch (error) {
      // A rejection is a hint too (anyone holding the id may reject it), except a cancellation of this wait.
      if (error instanceof restate.TerminalError && error.code === CANCELLED) throw error;
    }
    const record = await client.get();
    if (record !== null && record.state !== 'pending') return record;
  }
}

/** A Restate TerminalError for a Parley error: the invocation fails for good, the Parley error is its cause. */
function terminal(error: ParleyRestateError): restate.TerminalError {
  const failure = new restate.TerminalError(`${error.code}: ${error.message}`);
  Object.defineProperty(failure, 'cause', { value: error });
  return failure;
}
