import { type Committed, createKernel, createOwnerId, isParleyError, type KernelStep } from '@parley/core';
import { CorrelateError } from '../errors.js';
import {
  basisOf,
  busy,
  type DurableState,
  exclusive,
  keep,
  keyOf,
  protocolOf,
  refused,
} from './durable-io.js';
import { commitSettlement, onStoreChange, onStoreResync, reconcileWith } from './durable-sync.js';
import type { Durable, DurableHost } from './durable-types.js';
import { extraOf, type Outgoing } from './records.js';
import { settlementStep } from './settle-step.js';
import { encode, fromStored, requestCodec, type StoredRequest } from './stored-request.js';

/** Settled records stay this long in a shared store at least, so other instances read the outcome. */
export const MIN_STORE_RETAIN_MS = 60_000;

/**
 * The store side of the requester: every pending request is a record of the durable kernel
 * (`parley.correlate.request`, format 1), and every change of it is a pure step on the freshly read
 * record committed with one compare-and-set.
 */
export function createDurable(host: DurableHost): Durable {
  const { store, prefix, clock, tracker, storeRetainMs } = host;
  const d: DurableState = {
    host,
    // graceMs 0: a record lives exactly until its stored deadlineAt (set with the retention)
    kernel: createKernel({ store, clock, owner: createOwnerId('correlate'), graceMs: 0 }),
    requests: requestCodec(host.self),
    held: new WeakMap(),
    chains: new WeakMap(),
    settle: settlementStep(storeRetainMs),
  };
  const { kernel, requests } = d;
  const unwatch = store.watch?.(prefix, (change) => onStoreChange(d, change), {
    onResync: () => onStoreResync(d),
  });

  return {
    persistThenLaunch: (record) => persistThenLaunch(d, record),

    commit(record, event, response, reason, error) {
      return exclusive(d, record, () => commitSettlement(d, record, event, response, reason, error));
    },

    extend(record, deadlineAt, human) {
      if (extraOf(record).version === null) return Promise.resolve(true);
      const seen = record.deadlineAt;
      const move: KernelStep<StoredRequest, null, boolean> = (current) =>
        current?.state === 'pending' && current.deadlineAt === seen
          ? {
              value: { ...current, deadlineAt, human },
              effects: [true],
              deadlineAt: current.maxDeadlineAt + storeRetainMs,
            }
          : { value: current, effects: [false] }; // another instance changed it first
      return exclusive(d, record, async () => {
        if (record.state !== 'pending') return false;
        const done = await busy(d, record, () =>
          kernel.apply(keyOf(d, record.id), requests, move, null, basisOf(d, record)),
        );
        if (done?.ok === true && done.effects[0] === true) {
          keep(d, record, done.committed);
          return true;
        }
        if (done?.ok === true) reconcileWith(d, record, done.committed);
        else if (done !== undefined)
          host.events.emit('error', {
            code: 'store_failed',
            requestId: record.id,
            error: done.cause ?? done,
          });
        return false;
      });
    },

    async load(id) {
      let stored: Committed<StoredRequest> | undefined;
      try {
        stored = await kernel.read(keyOf(d, id), requests);
      } catch (error) {
        if (isParleyError(error, 'store_failed')) throw error.cause ?? error; // what the store threw
        return refused(d, id, error);
      }
      const protocol = stored === undefined ? undefined : protocolOf(d, stored.value, id);
      if (stored === undefined || protocol === undefined) return undefined;
      const known = tracker.get(id);
      if (known !== undefined) return known;
      const adopted = host.adopt(fromStored(stored.value, protocol, stored.storeVersion));
      keep(d, adopted, stored);
      return adopted;
    },

    async restore() {
      const listed = await kernel.list(prefix, requests);
      for (const { key: at, message } of listed.refused) refused(d, at.slice(prefix.length), message);
      let count = 0;
      for (const stored of listed.records) {
        const id = stored.key.slice(prefix.length);
        if (tracker.has(id)) continue;
        const protocol = protocolOf(d, stored.value, id);
        if (protocol === undefined) continue;
        const record = host.adopt(fromStored(stored.value, protocol, stored.storeVersion));
        keep(d, record, stored);
        if (record.state === 'pending') count++;
      }
      return count;
    },

    unwatch() {
      unwatch?.();
    },
  };
}

/**
 * Writes a new request's record, then sends it; a record that could not be written (or whose key
 * exists already) is dropped and its promise rejects with `store_failed`.
 */
async function persistThenLaunch(d: DurableState, record: Outgoing): Promise<void> {
  const { host } = d;
  const { storeRetainMs } = host;
  const first: KernelStep<StoredRequest, StoredRequest, boolean> = (current, next) =>
    current === undefined
      ? { value: next, effects: [true], deadlineAt: next.maxDeadlineAt + storeRetainMs }
      : { value: current, effects: [false] };
  const done = await busy(d, record, () =>
    d.kernel.apply(keyOf(d, record.id), d.requests, first, encode(record)),
  );
  if (done?.ok === true && done.effects[0] === true) {
    keep(d, record, done.committed);
    if (!host.isClosed()) host.launch(record);
    return;
  }
  if (host.isClosed() || record.state !== 'pending') return;
  host.tracker.dropPending(record);
  const cause =
    done?.ok === false ? (done.cause ?? done) : new Error(`The key "${keyOf(d, record.id)}" already exists`);
  if (done !== undefined)
    host.events.emit('error', { code: 'store_failed', requestId: record.id, error: cause });
  const error = new CorrelateError(
    'store_failed',
    `Request "${record.id}" could not be written to the store`,
    {
      details: { requestId: record.id },
      cause,
    },
  );
  record.resolve?.(Promise.reject(error));
  record.resolve = undefined;
}
