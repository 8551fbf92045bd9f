import type { StoreChange, Unsubscribe } from '@parley/core';
import { type Entry, fail, type GateContext } from './context.js';
import { follow, removed, unfollow } from './followed.js';
import { isDecided, pendingRecords, readPendingAt } from './persistence.js';
import { dispatch, isDone } from './runner.js';
import { adoptRecorded, dropMirror } from './sync.js';

// Where the store's changes enter the gate: a change of a record this gate holds becomes an event
// of its confirmation; one of another gate's record updates what this gate follows of it (its
// compact index entry, followed.ts), read once per write and never held in full.

/** Subscribes to changes under the gate's prefix when the store can report them. */
export function watchStore(ctx: GateContext): Unsubscribe | undefined {
  return ctx.store.watch?.(ctx.prefix, (change) => onChange(ctx, change), {
    onResync: () => {
      void ctx.ready.then(() => resync(ctx));
    },
  });
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
    // A followed one ends when its pending record is removed, right after its decision.
    if (change.kind === 'set' && entry !== undefined && !isDone(entry)) void adoptRecorded(ctx, entry);
  } else if (change.kind !== 'set') {
    // Removed: settled there (its decision tells whether its prompt was ever shown) or expired.
    if (entry?.conf.remote)
      void adoptRecorded(ctx, entry).then((decision) => decision ?? dropMirror(ctx, entry));
    const followed = ctx.followed.get(id);
    if (followed !== undefined) removed(ctx, followed);
  } else if (entry === undefined) {
    if (!ctx.loading && !ctx.recentlySettled.has(id)) void readFollowed(ctx, id);
  } else if (!isDone(entry) && ctx.writing !== key) {
    // Reported from inside this gate's own write of it: nothing to read back. Otherwise taken only
    // when newer (its `rev`), after this gate's own writes.
    refresh(ctx, entry, change.version);
  }
}

/**
 * Re-reads an entry's record after this gate's own writes of it, and takes it only when it is a
 * newer version than the one this gate last wrote or read. A change to `version` that this gate's
 * own last write made is not read back: the store holds exactly what it wrote.
 */
export function refresh(ctx: GateContext, entry: Entry, version?: number | null): void {
  const read = async (): Promise<void> => {
    const { id } = entry.conf.record;
    if (isDone(entry)) return;
    if (version != null && entry.committed?.storeVersion === version) return; // its own write
    try {
      const record = await readPendingAt(ctx, id);
      if (record !== undefined) dispatch(ctx, entry, { type: 'stored', record, seq: ++ctx.arrivals });
    } catch (error) {
      fail(ctx, error, id);
    }
  };
  entry.io = entry.io.then(read);
}

/**
 * Reads another gate's record that changed and follows it (or what it knows of it is updated), so
 * its reply is caught on this bus too. Its decision is not read: one recorded already (its delete
 * failed) is found when a reply loads it, and the decision's compare-and-set then adopts it.
 */
async function readFollowed(ctx: GateContext, id: string): Promise<void> {
  try {
    const record = await readPendingAt(ctx, id);
    if (record !== undefined) follow(ctx, record);
  } catch (error) {
    fail(ctx, error, id);
  }
}

/** Re-reads what may have changed unheard: decisions of held confirmations, followed and new ones elsewhere. */
async function resync(ctx: GateContext): Promise<void> {
  if (ctx.closed) return;
  const held = [...ctx.byId.values(), ...ctx.mirrors.values()].filter(
    (entry) => entry.conf.state === 'prompted',
  );
  for (const entry of held) {
    if ((await adoptRecorded(ctx, entry)) === undefined) refresh(ctx, entry); // version-checked, in write order
  }
  try {
    const gone = new Set(ctx.followed.keys());
    for await (const { id, record } of pendingRecords(ctx)) {
      gone.delete(id);
      if (ctx.mirrors.has(id) || ctx.byId.has(id)) continue;
      // Followed at this version already (its change was heard): nothing to learn. A decision
      // recorded beside it (its delete failed) is found when a reply or its deadline loads it, as
      // for a record read on its change.
      if (record !== undefined && record.rev <= (ctx.followed.get(id)?.rev ?? -1)) continue;
      if (record === undefined || (await isDecided(ctx, record.id))) gone.add(id);
      else follow(ctx, record);
    }
    for (const id of gone) {
      const followed = ctx.followed.get(id);
      if (followed !== undefined) unfollow(ctx, followed); // settled or expired unheard
    }
  } catch (error) {
    fail(ctx, error);
  }
}
