import type { Committed, StoreChange } from '@parley/core';
import { isParleyError } from '@parley/core';
import type { RequestEvent } from '@parley/fsm';
import type { CorrelateError } from '../errors.js';
import { requestStep } from '../request-step.js';
import { basisOf, busy, type DurableState, keep, keyOf } from './durable-io.js';
import { extraOf, type Outgoing } from './records.js';
import type { Settlement } from './settle-step.js';
import { applyStored, type StoredRequest } from './stored-request.js';

/** A deadline whose store write failed is tried again after this long. */
const RETRY_MS = 1_000;

/**
 * Commits one settlement of a record with a compare-and-set on its stored copy; settles it here
 * from what the store holds. When the store fails, a cancel settles locally anyway and an expiry
 * is tried again; `true` when this event is the one that settled it.
 */
export async function commitSettlement(
  d: DurableState,
  record: Outgoing,
  event: RequestEvent,
  response: unknown,
  reason: string | undefined,
  error: CorrelateError | undefined,
): Promise<boolean> {
  const { host } = d;
  if (host.isClosed()) return false;
  const done = await busy(d, record, () =>
    d.kernel.apply(
      keyOf(d, record.id),
      d.requests,
      d.settle,
      { event, response, reason },
      { ...basisOf(d, record), maxAttempts: 2 },
    ),
  );
  if (done?.ok !== true) {
    if (done !== undefined)
      host.events.emit('error', { code: 'store_failed', requestId: record.id, error: done.cause ?? done });
    if (record.state === 'pending' && !host.isClosed()) {
      // The caller gave up: settle here even though the store was not updated.
      const at = host.clock.now();
      const next = requestStep(record.state, record.deadlineAt, event, at);
      if (next?.event === 'cancel') host.finish(record, next.to, response, reason, error, at, true);
      else if (next?.event === 'expire' && record.deadline === undefined) host.arm(record, at + RETRY_MS);
    }
    return false;
  }
  const found = done.effects[0] as Settlement; // the step always reports what it found
  if (found.kind !== 'settled') {
    reconcileWith(d, record, done.committed);
    return false;
  }
  keep(d, record, done.committed);
  if (found.own) host.finish(record, found.to, response, reason, error, found.at, false);
  else host.finish(record, found.to, undefined, undefined, undefined, found.at, false);
  return found.own;
}

/** Brings a pending local record in line with what the store holds (`undefined`: gone or unreadable). */
export function reconcileWith(
  d: DurableState,
  record: Outgoing,
  stored: Committed<StoredRequest> | undefined,
): void {
  const { host } = d;
  if (record.state !== 'pending' || host.isClosed()) return;
  if (stored === undefined || stored.value.id !== record.id) {
    host.finish(record, 'expired', undefined, 'the stored record is gone', undefined, host.clock.now(), true);
    return;
  }
  keep(d, record, stored);
  const value = stored.value;
  if (value.state !== 'pending') {
    const at = value.settledAt ?? host.clock.now();
    host.finish(record, value.state, value.response, value.reason, undefined, at, true);
    return;
  }
  const deadlineAt = record.deadlineAt;
  applyStored(record, value);
  if (record.deadline === undefined || record.deadlineAt !== deadlineAt) host.arm(record);
}

/** Re-reads a record after another instance wrote it. */
async function reconcile(d: DurableState, record: Outgoing): Promise<void> {
  const { host } = d;
  let stored: Committed<StoredRequest> | undefined;
  try {
    stored = await d.kernel.read(keyOf(d, record.id), d.requests);
  } catch (error) {
    if (isParleyError(error, 'store_failed')) {
      host.events.emit('error', { code: 'store_failed', requestId: record.id, error: error.cause ?? error });
      if (record.state === 'pending' && !host.isClosed()) host.arm(record, host.clock.now() + RETRY_MS);
      return;
    }
    stored = undefined; // a record this correlator cannot read counts as gone
  }
  reconcileWith(d, record, stored);
}

/** A change of a stored request that another instance made: the pending record is re-read. */
export function onStoreChange(d: DurableState, change: StoreChange): void {
  const { host } = d;
  const record = host.tracker.get(change.key.slice(host.prefix.length));
  if (record === undefined || record.state !== 'pending' || host.isClosed()) return;
  const extra = extraOf(record);
  if (extra.busy) return;
  if (change.version !== null && change.version === extra.version) return;
  void reconcile(d, record);
}

/** Changes may have gone unheard (a store that lost its subscription): re-read every pending record. */
export function onStoreResync(d: DurableState): void {
  if (d.host.isClosed()) return;
  for (const record of [...d.host.tracker.pendingRecords()]) {
    if (record.state === 'pending' && !extraOf(record).busy) void reconcile(d, record);
  }
}
