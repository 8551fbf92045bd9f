import type { StoreChange, Unsubscribe } from '@parley/core';
import type { ConfirmDecision } from '../decision.js';
import { fail, forgetMirror, type GateContext } from './context.js';
import { schedule, settle, wake } from './lifecycle.js';
import { remember } from './settled.js';
import {
  dropPending,
  fromRecord,
  isDecided,
  pendingIds,
  readDecision,
  readPendingAt,
} from './persistence.js';
import { type Entry, type PendingRecord, unsent } from './records.js';
import { adopt } from './step-admit.js';

// Keeping a gate in step with its store: what was pending before it started (restore), and what
// other gates on the same store do meanwhile (Store.watch, and a full re-read on resync).

/**
 * Loads the confirmations persisted before this gate started; it owns them from now on. A record
 * whose decision exists is settled (its delete failed) and is removed, not restored; a record that
 * does not parse is reported and skipped; one whose prompt was never confirmed delivered settles
 * `aborted` / `prompt_failed` (nobody can tell whether its replies answer it).
 */
export async function restore(ctx: GateContext): Promise<void> {
  const undelivered: Entry[] = [];
  try {
    for await (const id of pendingIds(ctx)) {
      const record = await readPendingAt(ctx, id);
      if (record === undefined || ctx.byId.has(record.id) || ctx.active.has(record.sessionKey)) continue;
      if (await isDecided(ctx, record.id)) {
        await dropPending(ctx, record.id);
        continue;
      }
      if (record.owner !== undefined && record.owner !== ctx.replicaId) {
        follow(ctx, record); // another replica's: it (or its next start) resumes it
        continue;
      }
      const entry = fromRecord(record, false, ++ctx.arrivals);
      ctx.byId.set(entry.record.id, entry);
      ctx.active.set(entry.record.sessionKey, entry);
      schedule(ctx, entry);
      if (entry.record.deliveredAt === undefined) undelivered.push(entry);
    }
  } catch (error) {
    fail(ctx, error);
  }
  for (const entry of undelivered) settle(ctx, entry, 'aborted', 'prompt_failed');
}

/** Subscribes to changes under the gate's prefix when the store can report them. */
export function watchStore(ctx: GateContext): Unsubscribe | undefined {
  return ctx.store.watch?.(ctx.prefix, (change) => onChange(ctx, change), {
    onResync: () => {
      void ctx.ready.then(() => resync(ctx));
    },
  });
}

/** Stops following another gate's confirmation (settled or expired there); nothing is recorded or sent. */
export function dropMirror(ctx: GateContext, entry: Entry, decision?: ConfirmDecision): void {
  if (entry.done) return;
  entry.done = true;
  ctx.clock.clearTimeout(entry.timer);
  entry.timer = undefined;
  forgetMirror(ctx, entry);
  remember(ctx, entry, decision?.outcome, decision?.reason); // answers to a prompt the person saw are absorbed here too
  wake(entry); // replies held for its delivery are judged again, never left hanging
}

/** Settles an entry with the decision recorded in the store, if there is one, and returns it. */
export async function adoptRecorded(ctx: GateContext, entry: Entry): Promise<ConfirmDecision | undefined> {
  const decision = await readDecision(ctx, entry.record.id);
  if (decision === undefined) return undefined;
  if (entry.remote) dropMirror(ctx, entry, decision);
  else settle(ctx, entry, decision.outcome, decision.reason, { adopt: decision });
  return decision;
}

/** A change under the prefix, made by this gate or any other on the same store. */
function onChange(ctx: GateContext, change: StoreChange): void {
  if (ctx.closed) return;
  const { key } = change;
  const { decisionPrefix, pendingPrefix } = ctx.keys;
  const isDecision = key.startsWith(decisionPrefix);
  if (!isDecision && !key.startsWith(pendingPrefix)) return;
  const id = key.slice(isDecision ? decisionPrefix.length : pendingPrefix.length);
  const entry = ctx.byId.get(id) ?? ctx.mirrors.get(id);
  if (isDecision) {
    if (change.kind === 'set' && entry !== undefined && !entry.done) void adoptRecorded(ctx, entry);
  } else if (change.kind !== 'set') {
    // Removed: settled there (its decision tells whether its prompt was ever shown) or expired.
    if (entry?.remote) void adoptRecorded(ctx, entry).then((decision) => decision ?? dropMirror(ctx, entry));
  } else if (entry === undefined) {
    if (!ctx.loading && !ctx.recentlySettled.has(id)) void loadMirror(ctx, id);
  } else if (!entry.done) {
    refresh(ctx, entry); // taken only when newer (its `rev`), after this gate's own writes
  }
}

/**
 * Re-reads an entry's record after this gate's own writes of it, and takes it only when it is a
 * newer version than the one this gate last wrote or read.
 */
export function refresh(ctx: GateContext, entry: Entry): void {
  const read = async (): Promise<void> => {
    if (entry.done) return;
    try {
      const record = await readPendingAt(ctx, entry.record.id);
      if (record !== undefined && !entry.done) update(ctx, entry, record);
    } catch (error) {
      fail(ctx, error, entry.record.id);
    }
  };
  entry.io = entry.io.then(read);
}

/** Follows a confirmation another gate prompted, so its reply is caught on this bus too. */
async function loadMirror(ctx: GateContext, id: string): Promise<void> {
  try {
    const record = await readPendingAt(ctx, id);
    if (record !== undefined && !(await isDecided(ctx, id))) follow(ctx, record);
  } catch (error) {
    fail(ctx, error, id);
  }
}

/**
 * Takes what a newer stored version of a record changes (the pure `adopt` rule): a new prompt is
 * in flight (maybe) from now on, a delivery is learnt now, the deadline moves.
 */
function update(ctx: GateContext, entry: Entry, record: PendingRecord): void {
  const adoption = adopt({ ...entry.record, delivered: entry.deliveredSeq !== undefined }, record);
  if (adoption === undefined) return;
  entry.record.rev = record.rev;
  if (adoption.prompt !== undefined) {
    Object.assign(entry.record, adoption.prompt);
    unsent(entry);
    entry.sentSeq = 0; // sent by another gate, at a moment this one did not see
  }
  if (adoption.delivered !== undefined) {
    entry.record.deliveredAt = adoption.delivered.deliveredAt;
    entry.deliveredSeq = ++ctx.arrivals;
    entry.record.order = adoption.delivered.order;
    entry.seen = true;
  }
  if (adoption.expiresAt !== undefined) {
    entry.record.expiresAt = adoption.expiresAt;
    schedule(ctx, entry);
  }
  if (entry.deliveredSeq !== undefined) wake(entry); // replies held while its prompt was in flight
}

/** Follows a confirmation another gate prompted; returns the followed entry, if it is followed. */
export function follow(ctx: GateContext, record: PendingRecord): Entry | undefined {
  const { id } = record;
  const held = ctx.mirrors.get(id);
  if (held !== undefined) {
    // Read twice (a notification raced the first read): keep the newer version.
    if (!held.done) update(ctx, held, record);
    return held;
  }
  if (ctx.closed || ctx.byId.has(id) || ctx.recentlySettled.has(id)) return undefined;
  const entry = fromRecord(record, true, ++ctx.arrivals);
  ctx.mirrors.set(id, entry);
  ctx.mirrorOf.set(entry.record.sessionKey, entry);
  // Every gate following it times it out, so it expires even when its owner is gone; the decision
  // is a compare-and-set, so one gate records it and tells the session, the others adopt it.
  schedule(ctx, entry);
  return entry;
}

/** Re-reads what may have changed unheard: decisions of held confirmations, new ones elsewhere. */
async function resync(ctx: GateContext): Promise<void> {
  if (ctx.closed) return;
  const held = [...ctx.byId.values(), ...ctx.mirrors.values()].filter((entry) => entry.state === 'prompted');
  for (const entry of held) {
    if ((await adoptRecorded(ctx, entry)) === undefined) refresh(ctx, entry); // version-checked, in write order
  }
  try {
    for await (const id of pendingIds(ctx)) {
      if (ctx.mirrors.has(id) || ctx.byId.has(id)) continue;
      const record = await readPendingAt(ctx, id);
      if (record !== undefined && !(await isDecided(ctx, record.id))) follow(ctx, record);
    }
  } catch (error) {
    fail(ctx, error);
  }
}
