import { copyWith } from '@parley/core';
// The head's lease as the runner takes it for one turn, rollback or undo, and gives it back.
import type { Lease } from '@parley/core';
import { TurnsError } from './errors.js';
import { HEAD, type Head, type OpenTurn, type StoredHead } from './head.js';
import type { TurnRefusal } from './refusals.js';
import { catchUp, headOf, kernelFailure, loadHead, type RunnerCore } from './sync.js';

/** @internal Begin and end of the head's lease for one runner. */
export interface HeadLease {
  /**
   * Takes the lease from the committed head (fresh); `busy` while another holder's is valid. With
   * `mark`, the turn it returns is written as the head's open turn in the same write as the lease;
   * when the catch-up of an owed checkpoint then moves the head (to follow a rollback), it is marked
   * again on the moved head. A throw before it returns takes the mark back and ends the lease.
   */
  begin(
    mark?: (head: Head, lease: Lease, now: number) => OpenTurn,
  ): Promise<{ readonly stored: StoredHead; readonly lease: Lease } | TurnRefusal>;
  /** Ends a lease; when the store fails, remembers it so the next call ends it. */
  end(lease: Lease): Promise<void>;
  /** Ends a lease this process could not end before. */
  settleStale(): Promise<void>;
}

/** @internal */
export function createHeadLease<TState>(
  core: RunnerCore<TState>,
  label: (turn: number) => string,
  assertOpened: () => void,
  busy: () => TurnRefusal,
): HeadLease {
  /** A lease of this process that a failing store kept it from ending. */
  let stale: Lease | undefined;
  const settleStale = async (): Promise<void> => {
    if (stale !== undefined) await core.kernel.release(stale);
    stale = undefined;
  };
  async function end(lease: Lease): Promise<void> {
    await core.kernel.release(lease);
    const now = await loadHead(core).catch(() => undefined);
    stale = now === undefined || now.lease?.token === lease.token ? lease : undefined;
  }
  return {
    end,
    settleStale,
    async begin(mark) {
      assertOpened();
      await settleStale();
      const ttlMs = core.turnTimeoutMs;
      const basis = core.committed.head; // the head the last turn committed: no read while it is stored
      core.committed.head = undefined; // used once: a rollback, undo or failed turn reads the head
      // the open turn goes in the lease's write (marked again below if the catch-up moves the head)
      const found: { open: OpenTurn | null } = { open: null }; // the head's open turn as read, before this one's
      const change =
        mark &&
        ((head: Head | undefined, lease: Lease, now: number) => {
          found.open = head?.open ?? null;
          return head && copyWith(head, { open: mark(head, lease, now) });
        });
      const taken = await core.kernel.acquire(core.headKey, HEAD, {
        ttlMs,
        basis,
        ...(change === undefined ? {} : { change }),
      });
      if (!taken.ok) {
        if (taken.code === 'lease_held' || taken.code === 'write_conflict') return busy();
        throw kernelFailure(taken);
      }
      const { lease, committed } = taken;
      let stored = committed;
      try {
        if (stored === undefined)
          throw new TurnsError('not_opened', 'The runner has no head: call open() first');
        const open = change === undefined ? stored.value.open : found.open;
        if (open !== null) core.events.emit('recovered', { turnId: open.turnId, action: 'abandoned' });
        stored = await catchUp(core, stored, lease, false, label);
        // a head the catch-up moved (following a rollback) is marked again: its turn number is another
        if (mark !== undefined && stored !== committed) stored = await markOpen(core, lease, stored, mark);
        return { stored, lease };
      } catch (err) {
        await (mark !== undefined && stored !== undefined ? withdraw(core, lease, stored, end) : end(lease));
        throw err;
      }
    },
  };
}

/** Marks the turn `mark` returns open on the head, under `lease`, on the head `basis` (no read first). */
async function markOpen<TState>(
  core: RunnerCore<TState>,
  lease: Lease,
  basis: StoredHead,
  mark: (head: Head, lease: Lease, now: number) => OpenTurn,
): Promise<StoredHead> {
  const marked = await core.kernel.apply(
    core.headKey,
    HEAD,
    (h: Head | undefined, _e: null, now: number) => ({
      value: h && copyWith(h, { open: mark(h, lease, now) }),
      effects: [],
    }),
    null,
    { lease, basis },
  );
  return headOf(marked, core.headKey);
}

/** @internal Ends `lease` with the open turn its write marked taken back (that turn never started); else just ends it. */
export async function withdraw<TState>(
  core: RunnerCore<TState>,
  lease: Lease,
  basis: StoredHead,
  end: (lease: Lease) => Promise<void>,
): Promise<void> {
  const cleared = await core.kernel.apply(
    core.headKey,
    HEAD,
    (h: Head | undefined) => ({ value: h && copyWith(h, { open: null }), effects: [] }),
    null,
    { lease, release: true, basis },
  );
  if (!cleared.ok) await end(lease);
}
