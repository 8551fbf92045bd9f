import type { SessionAddress } from '@parley/bus';
import type { JsonValue } from '@parley/core';
import type { ConfirmDecision, ConfirmRequest } from '../decision.js';
import { checkApprovers } from './checks.js';
import { fail, type GateContext } from './context.js';
import { activate, settle } from './lifecycle.js';
import type { Entry } from './records.js';
import { mayAnswer } from './step.js';

/** The longest summary kept; a longer one is kept cut, with a visible count of what was not kept. */
const MAX_KEPT_SUMMARY = 8_000;

/** A new entry for a checked request, not yet admitted. */
export function newEntry(
  ctx: GateContext,
  request: ConfirmRequest,
  id: string,
  address: SessionAddress,
  action: ConfirmDecision['action'],
  timeoutMs: number,
): Entry {
  return {
    id,
    sessionKey: request.sessionKey,
    address,
    action,
    summary: keep(request.summary),
    requester: request.requester,
    approvers: request.approvers === undefined ? ctx.approvers : checkApprovers(request.approvers),
    steps: request.steps?.map((step) => ({ prompt: step.prompt, expect: step.expect })),
    timeoutMs,
    requestedAt: ctx.clock.now(),
    restored: false,
    remote: false,
    owner: ctx.replicaId,
    state: 'new',
    step: 0,
    reprompts: 0,
    firstPromptedAt: 0,
    promptedAt: 0,
    deliveredAt: undefined,
    sentSeq: undefined,
    deliveredSeq: undefined,
    order: undefined,
    seen: false,
    toldEarly: undefined,
    windowOver: false,
    sends: 0,
    pages: 0,
    expiresAt: undefined,
    done: false,
    io: Promise.resolve(),
  };
}

/**
 * Admits a new entry: aborted by its signal, confirmed by a standing allowance, prompted when its
 * session is free, and otherwise queued, refused or superseding, as `whenPending` says.
 */
export async function begin(ctx: GateContext, entry: Entry, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) {
    settle(ctx, entry, 'aborted', 'signal');
    return;
  }
  if (signal !== undefined) {
    entry.signal = signal;
    entry.onAbort = () => settle(ctx, entry, 'aborted', 'signal');
    signal.addEventListener('abort', entry.onAbort, { once: true });
  }
  if (ctx.byId.size >= ctx.maxPending) {
    settle(ctx, entry, 'refused', 'too_many_pending', { record: false }); // not recorded: a flood writes nothing
    return;
  }
  ctx.byId.set(entry.id, entry);
  if (ctx.loading) await ctx.ready;
  if (ctx.standingMs !== undefined && entry.steps === undefined) {
    const grant = await ctx.store.get(ctx.keys.allow(entry)).catch((error: unknown) => {
      fail(ctx, error, entry.id);
      return undefined;
    });
    if (isGrant(grant) && mayAnswer(entry, grant.grantedBy)) {
      settle(ctx, entry, 'confirmed', 'standing_allowance', {
        extra: { decidedBy: grant.grantedBy },
      });
      return;
    }
  }
  if (entry.done) return;
  if (ctx.closed) {
    settle(ctx, entry, 'aborted', 'closed', { record: false });
    return;
  }
  const current = ctx.active.get(entry.sessionKey);
  if (current === undefined) {
    activate(ctx, entry);
    return;
  }
  if (ctx.whenPending === 'reject') {
    settle(ctx, entry, 'refused', 'session_busy');
    return;
  }
  if (ctx.whenPending === 'supersede') {
    settle(ctx, current, 'superseded', 'superseded');
    activate(ctx, entry);
    return;
  }
  const list = ctx.queued.get(entry.sessionKey) ?? [];
  if (list.length >= ctx.maxQueued) {
    settle(ctx, entry, 'refused', 'session_busy');
    return;
  }
  entry.state = 'queued';
  list.push(entry);
  ctx.queued.set(entry.sessionKey, list);
  ctx.events.emit('queued', { id: entry.id, sessionKey: entry.sessionKey, position: list.length });
}

/**
 * A standing allowance, read strictly: it covers a request only when its granter may answer that
 * request (its key already binds session, action and approver policy).
 */
function isGrant(value: JsonValue | undefined): value is { readonly grantedBy: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { grantedBy } = value as { readonly grantedBy?: JsonValue };
  return typeof grantedBy === 'string' && grantedBy !== '';
}

function keep(summary: string): string {
  if (summary.length <= MAX_KEPT_SUMMARY) return summary;
  return `${summary.slice(0, MAX_KEPT_SUMMARY)}… (${summary.length - MAX_KEPT_SUMMARY} more characters not kept)`;
}
