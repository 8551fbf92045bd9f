// The head's lease as the runner takes it for one turn, rollback or undo, and gives it back.
import type { Lease } from '@parley/core';
import { TurnsError } from './errors.js';
import { HEAD, type Head, type OpenTurn, type StoredHead } from './head.js';
import type { TurnRefusal } from './refusals.js';
import { catchUp, kernelFailure, loadHead, type RunnerCore } from './sync.js';

/** @internal Begin and end of the head's lease for one runner. */
export interface HeadLease {
  /**
   * Takes the lease from the committed head (fresh); `busy` while another holder's is valid. With
   * `mark`, the turn it returns is written as the head's open turn in the same write as the lease
   * (`opened`), unless a checkpoint is owed: then the catch-up comes first and the caller marks it.
   */
  begin(
    mark?: (head: Head, lease: Lease, now: number) => OpenTurn,
  ): Promise<{ readonly stored: StoredHead; readonly lease: Lease; readonly opened: boolean } | TurnRefusal>;
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
      // the open turn goes in the lease's write, unless the catch-up below may move the head first
      const opening = mark !== undefined && !core.behind.checkpoint ? mark : undefined;
      const found: { open: OpenTurn | null } = { open: null }; // the head's open turn as read, before this one's
      const change =
        opening &&
        ((head: Head | undefined, lease: Lease, now: number) => {
          found.open = head?.open ?? null;
          return head && { ...head, open: opening(head, lease, now) };
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
      const { lease } = taken;
      try {
        if (taken.committed === undefined) {
          throw new TurnsError('not_opened', 'The runner has no head: call open() first');
        }
        const open = change === undefined ? taken.committed.value.open : found.open;
        if (open !== null) core.events.emit('recovered', { turnId: open.turnId, action: 'abandoned' });
        if (change !== undefined) return { stored: taken.committed, lease, opened: true };
        return { stored: await catchUp(core, taken.committed, lease, false, label), lease, opened: false };
      } catch (err) {
        await end(lease);
        throw err;
      }
    },
  };
}
