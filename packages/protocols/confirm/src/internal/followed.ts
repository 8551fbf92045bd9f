import { parseSessionKey } from '@parley/bus';
import type { ConfirmDecision } from '../decision.js';
import { type Entry, type Followed, fail, type GateContext, keepAtMost } from './context.js';
import { confirmationOf } from './confirmation.js';
import { readDecision, readPendingAt } from './persistence.js';
import type { ConfirmationRecord } from './records.js';
import { FOLLOWER_GRACE_MS } from './machine.js';
import { dispatch, entryOf, isDone } from './runner.js';

// Another gate's pending confirmations, as this gate knows them. It keeps of each only a compact
// index entry — its session, the version it read last, when it learnt of that version's delivery,
// its deadline — and loads the full record from the store when something here needs it: a message
// of its session, a click on its card, or its deadline (so it expires even when its owner is
// gone). A loaded one is a full entry (`mirrors`), handled like this gate's own until it ends.
// So a gate holds full records only for its own confirmations and those it is answering. One whose
// prompt was delivered stays indexed for `afterDecisionMs` once it is removed from the store
// (`followedLately`): an approver's answer to it that reaches this gate then is absorbed as on its
// owner, from its decision read on demand.

/**
 * Follows a confirmation another gate prompted: keeps its index entry (or updates it when the
 * record read is newer), or hands the record to the full entry when it is loaded already.
 */
export function follow(ctx: GateContext, record: ConfirmationRecord): void {
  const { id } = record;
  const mirror = ctx.mirrors.get(id);
  if (mirror !== undefined) {
    // Read twice (a notification raced the first read): the step keeps the newer version.
    dispatch(ctx, mirror, { type: 'stored', record, seq: ++ctx.arrivals });
    return;
  }
  if (ctx.closed || ctx.byId.has(id) || ctx.recentlySettled.has(id)) return;
  const held = ctx.followed.get(id);
  if (held !== undefined) {
    if (record.rev <= held.rev) return; // not newer than what it knows
    held.rev = record.rev;
    // A delivery learnt now: a reply that reached this gate before is judged as in flight.
    held.deliveredSeq = record.deliveredAt === undefined ? null : ++ctx.arrivals;
    held.approvers = record.approvers;
    held.steps = record.steps;
    if (record.expiresAt !== held.expiresAt) schedule(ctx, held, record.expiresAt);
    return;
  }
  const followed: Followed = {
    id,
    sessionKey: record.sessionKey,
    rev: record.rev,
    deliveredSeq: record.deliveredAt === undefined ? null : ++ctx.arrivals,
    expiresAt: record.expiresAt,
    approvers: record.approvers,
    steps: record.steps,
    until: undefined,
    deadline: undefined,
    loading: undefined,
  };
  ctx.followed.set(id, followed);
  ctx.followedOf.set(record.sessionKey, followed);
  schedule(ctx, followed, record.expiresAt);
}

/** Stops following one (settled, deleted or expired in the store, or loaded as a full entry). */
export function unfollow(ctx: GateContext, followed: Followed): void {
  if (ctx.followed.get(followed.id) !== followed) return;
  ctx.followed.delete(followed.id);
  if (ctx.followedOf.get(followed.sessionKey) === followed) ctx.followedOf.delete(followed.sessionKey);
  if (followed.deadline !== undefined) ctx.deadlines.remove(followed.deadline);
  followed.deadline = undefined;
}

/**
 * Its record was removed from the store (settled on another gate, or expired): it is followed no
 * more, and when its prompt was delivered its session's answers to it are absorbed for
 * `afterDecisionMs` (at most `maxPending` sessions are kept, the oldest forgotten first, and
 * those whose time is over are forgotten as others are removed).
 */
export function removed(ctx: GateContext, followed: Followed): void {
  unfollow(ctx, followed);
  const { afterDecisionMs, admit } = ctx.rules;
  if (followed.deliveredSeq === null || afterDecisionMs === 0) return;
  const now = ctx.clock.now();
  const lately = ctx.followedLately;
  // Kept in the order they were removed: those whose time is over are forgotten from the oldest.
  for (const [sessionKey, oldest] of lately) {
    if ((oldest.until as number) > now) break;
    lately.delete(sessionKey);
  }
  followed.until = now + afterDecisionMs;
  lately.delete(followed.sessionKey);
  lately.set(followed.sessionKey, followed);
  keepAtMost(lately, admit.maxPending);
}

/**
 * The followed confirmation a message of `sessionKey` may answer: pending on another gate, or
 * removed lately (then only until its after-decision time is over, by the clock reading `now`).
 */
export function followedFor(ctx: GateContext, sessionKey: string): Followed | undefined {
  const followed = ctx.followedOf.size === 0 ? undefined : ctx.followedOf.get(sessionKey);
  if (followed !== undefined || ctx.followedLately.size === 0) return followed;
  const lately = ctx.followedLately.get(sessionKey);
  if (lately === undefined || ctx.clock.now() < (lately.until as number)) return lately;
  ctx.followedLately.delete(sessionKey);
  return undefined;
}

/** Stops following everything (the gate closes). */
export function unfollowAll(ctx: GateContext): void {
  ctx.followed.clear();
  ctx.followedOf.clear();
  ctx.followedLately.clear();
  ctx.deadlines.clear();
}

/**
 * Times it out where its owner is gone: a little after its deadline (the owner, alive, goes first),
 * it is loaded and its deadline judged like a full entry's; the decision is a compare-and-set, so
 * one gate records it and tells the session, the others adopt it.
 */
function schedule(ctx: GateContext, followed: Followed, expiresAt: number): void {
  followed.expiresAt = expiresAt;
  if (followed.deadline !== undefined) ctx.deadlines.remove(followed.deadline);
  followed.deadline = ctx.deadlines.add(expiresAt + FOLLOWER_GRACE_MS, expirerOf(ctx), followed);
}

/** One deadline callback per gate, so an index entry carries no closure of its own. */
const expirers = new WeakMap<GateContext, (followed: Followed) => void>();

function expirerOf(ctx: GateContext): (followed: Followed) => void {
  let expire = expirers.get(ctx);
  if (expire === undefined) {
    expire = (followed) => {
      followed.deadline = undefined;
      void load(ctx, followed).then((entry) => {
        if (entry?.conf.remote && !isDone(entry)) dispatch(ctx, entry, { type: 'grace_over' });
      });
    };
    expirers.set(ctx, expire);
  }
  return expire;
}

/**
 * Loads the full record of a followed confirmation and makes it a full entry; `undefined` when it
 * is not pending any more (or the store cannot be read: reported, and it stays followed). The
 * delivery this gate learnt before counts from when it learnt it; a newer version read now counts
 * as learnt now, after anything that already arrived (which is then judged as in flight). One
 * removed meanwhile whose prompt was delivered is taken as decided, from its recorded decision, so
 * that an answer to it is absorbed here as on its owner.
 */
export function load(ctx: GateContext, followed: Followed): Promise<Entry | undefined> {
  if (followed.loading !== undefined) return followed.loading;
  const loading = (async (): Promise<Entry | undefined> => {
    const { id } = followed;
    let record: ConfirmationRecord | undefined;
    let decision: ConfirmDecision | undefined;
    try {
      record = await readPendingAt(ctx, id);
      if (record === undefined && followed.deliveredSeq !== null) decision = await readDecision(ctx, id);
    } catch (error) {
      fail(ctx, error, id);
      followed.loading = undefined;
      return undefined;
    }
    const held = ctx.byId.get(id) ?? ctx.mirrors.get(id);
    if (held !== undefined) return held;
    unfollow(ctx, followed);
    if (ctx.followedLately.get(followed.sessionKey) === followed)
      ctx.followedLately.delete(followed.sessionKey);
    if (ctx.closed || ctx.recentlySettled.has(id)) return undefined;
    if (record !== undefined) {
      const known = record.rev === followed.rev ? followed.deliveredSeq : null;
      return mirror(ctx, record, record.deliveredAt === undefined ? null : (known ?? ++ctx.arrivals));
    }
    if (decision === undefined) return undefined;
    const ended = mirror(ctx, decidedRecord(followed, decision), followed.deliveredSeq);
    dispatch(ctx, ended, { type: 'drop', decision });
    return undefined;
  })();
  followed.loading = loading;
  return loading;
}

/** The record of a followed confirmation removed from the store, rebuilt from its decision. */
function decidedRecord(followed: Followed, decision: ConfirmDecision): ConfirmationRecord {
  const promptedAt = decision.promptedAt ?? decision.requestedAt;
  return {
    rev: followed.rev,
    id: followed.id,
    sessionKey: followed.sessionKey,
    action: decision.action,
    summary: decision.summary,
    requester: decision.requester,
    approvers: followed.approvers,
    steps: followed.steps,
    step: 0,
    reprompts: 0,
    timeoutMs: Math.max(0, followed.expiresAt - promptedAt),
    requestedAt: decision.requestedAt,
    firstPromptedAt: promptedAt,
    promptedAt,
    deliveredAt: promptedAt,
    expiresAt: followed.expiresAt,
  };
}

/**
 * A full entry for another gate's confirmation: every gate holding it times it out, so it expires
 * even when its owner is gone; the decision is a compare-and-set, so one gate records it and tells
 * the session, the others adopt it. `deliveredSeq`: when this gate learnt of its delivery.
 */
export function mirror(ctx: GateContext, record: ConfirmationRecord, deliveredSeq: number | null): Entry {
  const followed = ctx.followed.get(record.id);
  if (followed !== undefined) unfollow(ctx, followed);
  const entry = storedEntry(ctx, record, true, deliveredSeq);
  ctx.mirrors.set(record.id, entry);
  ctx.mirrorOf.set(record.sessionKey, entry);
  dispatch(ctx, entry, { type: 'timed' });
  return entry;
}

/**
 * An entry for a persisted confirmation: restored after a restart, or another gate's (`remote`).
 * This gate did not see when its prompt's send began, so every arrival counts as after that.
 */
export function storedEntry(
  ctx: GateContext,
  record: ConfirmationRecord,
  remote: boolean,
  deliveredSeq: number | null,
): Entry {
  const conf = confirmationOf(record, {
    restored: true,
    remote,
    resumable: ctx.resume[record.action.name] !== undefined,
    state: 'prompted',
    deliveredSeq,
  });
  return entryOf(conf, parseSessionKey(record.sessionKey));
}
