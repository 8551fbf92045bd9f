// Waiting for a confirmation's decision from inside another Restate handler: the same wait as for
// a request (an awakeable as a hint, the stored decision read back), on the confirmations object.
import type { ConfirmDecision } from '@parley/confirm';
import type * as restate from '@restatedev/restate-sdk';
import { DEFAULT_MAX_WAKEUPS } from './await-request.js';
import type { ConfirmationsHandlers, ConfirmationsObject } from './confirmations-types.js';
import { awaitStored } from './internal/await-stored.js';

/**
 * Waits, durably, until confirmation `id` of session `sessionKey` is decided, and returns the
 * stored decision. The object wakes the wait only when the confirm step returned a `decided`
 * effect; a resolve or reject of the awakeable sent by anyone else (the ingress API) decides
 * nothing: the decision is read back, and the wait goes on while there is none.
 *
 * @throws a Restate `TerminalError` whose `cause` is a ParleyRestateError: `forged_wakeups` after
 * `maxWakeups` wake-ups without a decision, `unknown_confirmation` for a confirmation never
 * requested, `too_many_watchers` past 64 waiters.
 * @example
 * ```ts
 * import * as restate from '@restatedev/restate-sdk';
 * import { awaitConfirmation, defineConfirmations } from '@parley/restate';
 *
 * const confirmations = defineConfirmations({ name: 'confirmations', send: async () => true });
 * const tool = restate.service({
 *   name: 'tool',
 *   handlers: {
 *     outcome: async (ctx: restate.Context, input: { sessionKey: string; id: string }) =>
 *       (await awaitConfirmation(ctx, confirmations, input.sessionKey, input.id)).outcome,
 *   },
 * });
 * console.log(tool.name); // tool
 * ```
 */
export async function awaitConfirmation(
  ctx: restate.Context,
  confirmations: ConfirmationsObject<string>,
  sessionKey: string,
  id: string,
  options: { readonly maxWakeups?: number } = {},
): Promise<ConfirmDecision> {
  const client = ctx.objectClient<ConfirmationsHandlers>({ name: confirmations.name }, sessionKey);
  return awaitStored(ctx, {
    what: `confirmation "${id}"`,
    details: { sessionKey, id },
    maxWakeups: options.maxWakeups ?? DEFAULT_MAX_WAKEUPS,
    watch: (awakeableId) => client.watch({ id, awakeableId }),
    read: async () => (await client.decision(id)) ?? undefined,
  });
}
