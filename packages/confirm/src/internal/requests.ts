import type { SessionAddress } from '@parley/bus';
import type { JsonValue } from '@parley/core';
import type { ConfirmDecision, ConfirmRequest } from '../types.js';
import { checkApprovers } from './checks.js';
import { fail, type GateContext } from './context.js';
import { activate, settle } from './lifecycle.js';
import { type Entry, MAX_SUMMARY_LENGTH } from './records.js';

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
    summary: request.summary.slice(0, MAX_SUMMARY_LENGTH),
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
  ctx.byId.set(entry.id, entry);
  if (ctx.loading) await ctx.ready;
  if (ctx.standingMs !== undefined && entry.steps === undefined) {
    const grant = await ctx.store.get(ctx.keys.allow(entry)).catch((error: unknown) => {
      fail(ctx, error, entry.id);
      return undefined;
    });
    if (isGrant(grant)) {
      settle(ctx, entry, 'confirmed', 'standing_allowance', {
        extra: { decidedBy: String(grant.grantedBy) },
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

function isGrant(value: JsonValue | undefined): value is { readonly grantedBy: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'grantedBy' in value;
}
