// The head's lease as the runner takes it for one turn, rollback or undo, and gives it back.
import type { Lease } from '@parley/core';
import { TurnsError } from './errors.js';
import { HEAD, type StoredHead } from './head.js';
import type { TurnRefusal } from './refusals.js';
import { catchUp, kernelFailure, loadHead, type RunnerCore } from './sync.js';

/** @internal Begin and end of the head's lease for one runner. */
export interface HeadLease {
  /** Takes the lease from the committed head (fresh); `busy` while another holder's is valid. */
  begin(): Promise<{ readonly stored: StoredHead; readonly lease: Lease } | TurnRefusal>;
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
    async begin() {
      assertOpened();
      await settleStale();
      const ttlMs = core.turnTimeoutMs;
      const basis = core.committed.head; // the head the last turn committed: no read while it is stored
      core.committed.head = undefined; // used once: a rollback, undo or failed turn reads the head
      const taken = await core.kernel.acquire(core.headKey, HEAD, { ttlMs, basis });
      if (!taken.ok) {
        if (taken.code === 'lease_held' || taken.code === 'write_conflict') return busy();
        throw kernelFailure(taken);
      }
      const { lease } = taken;
      try {
        if (taken.committed === undefined) {
          throw new TurnsError('not_opened', 'The runner has no head: call open() first');
        }
        const open = taken.committed.value.open;
        if (open !== null) core.events.emit('recovered', { turnId: open.turnId, action: 'abandoned' });
        return { stored: await catchUp(core, taken.committed, lease, false, label), lease };
      } catch (err) {
        await end(lease);
        throw err;
      }
    },
  };
}
