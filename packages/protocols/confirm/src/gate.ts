import { isConsentLedger } from '@parley/core';
import { hashAction } from './digest.js';
import { ConfirmError } from './errors.js';
import { createConsentRecorder } from './internal/consent.js';
import { createContext } from './internal/context.js';
import { refresh, watchStore } from './internal/changes.js';
import { unfollowAll } from './internal/followed.js';
import { install } from './internal/intake.js';
import { openRequest } from './internal/open.js';
import { settle } from './internal/runner.js';
import { decisions, readDecision, useDecision } from './internal/persistence.js';
import { adoptRecorded, dropMirror, restore } from './internal/sync.js';
import type { ConfirmGate, ConfirmGateOptions } from './types.js';

/**
 * Creates a {@link ConfirmGate} on a bus and installs its interceptor: a pending confirmation of a
 * session takes the next reply of an allowed user of that session; the reply is consumed and never
 * reaches the agent.
 *
 * Use one gate per bot. Destructive tools call `request(...)`, then `authorize(decision, action)`
 * right before running; only a recorded `confirmed` decision for exactly that action passes, once.
 * Pending confirmations are written to the store, so a new gate on the same store (after a
 * restart) still intercepts their replies and either resumes them through `resume` handlers or
 * tells the user plainly that the action expired. Gates of several replicas sharing a store with
 * `Store.watch` follow each other: a reply caught on any replica settles the request where it waits.
 *
 * @throws CoreError `invalid_timeout` for a bad `timeoutMs`, `standingAllowanceMs` or `auditTtlMs`;
 * ConfirmError `invalid_argument` for a bad approver list, policy or limit.
 * @example
 * ```ts
 * import { createMessageBus } from '@parley/bus';
 * import { createConfirmGate } from '@parley/confirm';
 * import { createManualClock } from '@parley/core';
 *
 * const clock = createManualClock({ now: 1_000 });
 * const bus = createMessageBus({ clock });
 * const gate = createConfirmGate({ bus, clock });
 * const action = { name: 'sql.delete', args: { sql: 'DELETE FROM orders WHERE status = 1' } };
 * const delivered = new Promise((resolve) => gate.on('prompted', resolve)); // replies count from here
 * const pending = gate.request({ sessionKey: 'feishu:oc_1', action, summary: action.args.sql, requester: 'ou_alice' });
 * await delivered;
 * console.log((await bus.receiveOutbound()).text.startsWith('以下操作需要确认')); // true
 * await bus.publishInbound({ channel: 'feishu', chatId: 'oc_1', senderId: 'ou_alice', text: '确认' });
 * const decision = await pending;
 * console.log(decision.outcome, decision.decidedBy); // confirmed ou_alice
 * console.log((await gate.authorize(decision, action)).ok); // true
 * console.log(bus.size.inbound); // 0
 * ```
 */
export function createConfirmGate(options: ConfirmGateOptions): ConfirmGate {
  if (options.ledger !== undefined && !isConsentLedger(options.ledger)) {
    throw new ConfirmError('invalid_argument', 'ledger must have an append function');
  }
  const ctx = createContext(options, refresh);
  const { events } = ctx;
  const consent =
    options.ledger === undefined
      ? undefined
      : createConsentRecorder(options.ledger, events, options.ledgerRequired !== false);

  // Restore after the caller has had a chance to subscribe to `error`.
  const ready = Promise.resolve()
    .then(() => restore(ctx))
    .finally(() => {
      ctx.loading = false;
    });
  ctx.ready = ready;

  const uninstall = install(ctx);

  const unwatch = watchStore(ctx);

  const gate: ConfirmGate = {
    request: (request) => openRequest(ctx, consent, request),
    async authorize(decision, action) {
      const id = typeof decision === 'string' ? decision : decision?.id;
      const { digest } = hashAction(action);
      if (typeof id !== 'string') return { ok: false, code: 'unknown_decision' };
      if (consent === undefined) return useDecision(ctx, id, digest);
      return consent.authorize(
        () => readDecision(ctx, id),
        () => useDecision(ctx, id, digest),
      );
    },
    async reconcile(id) {
      const entry = ctx.byId.get(id) ?? ctx.mirrors.get(id);
      if (entry === undefined)
        return ctx.settling.get(id)?.then(() => readDecision(ctx, id)) ?? readDecision(ctx, id);
      const decision = await adoptRecorded(ctx, entry);
      await entry.io;
      return decision;
    },
    audit: () => decisions(ctx),
    pending: () =>
      [...ctx.byId.values(), ...ctx.mirrors.values()].map(
        ({ conf: { record, state, restored, remote } }) => ({
          id: record.id,
          sessionKey: record.sessionKey,
          actionName: record.action.name,
          requester: record.requester,
          state: state === 'prompted' ? 'prompted' : 'queued',
          step: record.step,
          delivered: record.deliveredAt !== undefined,
          ...(state === 'prompted' ? { expiresAt: record.expiresAt } : {}),
          restored,
          remote,
        }),
      ),
    followed: () =>
      [...ctx.followed.values()].map(({ id, sessionKey, deliveredSeq }) => ({
        id,
        sessionKey,
        delivered: deliveredSeq !== null,
      })),
    ready,
    on: (event, listener) => events.on(event, listener),
    async close() {
      if (ctx.closed) return;
      ctx.closed = true;
      consent?.stop();
      uninstall();
      unwatch?.();
      unfollowAll(ctx);
      for (const entry of [...ctx.mirrors.values()]) dropMirror(ctx, entry);
      const entries = [...ctx.byId.values()];
      for (const entry of entries) settle(ctx, entry, 'aborted', 'closed', { record: false });
      await Promise.all(entries.map((entry) => entry.io));
    },
  };
  ctx.gate = gate;
  return gate;
}
