import {
  type Committed,
  createKernel,
  createOwnerId,
  isParleyError,
  type KernelStep,
  type StoreChange,
} from '@parley/core';
import type { RequestEvent } from '@parley/fsm';
import { CorrelateError } from '../errors.js';
import type { Protocol } from '../protocol.js';
import type { Durable, DurableHost } from './durable-types.js';
import { extraOf, type Outgoing } from './records.js';
import { requestStep } from '../request-step.js';
import { type Settlement, settlementStep } from './settle-step.js';
import { applyStored, encode, fromStored, requestCodec, type StoredRequest } from './stored-request.js';

/** Settled records stay this long in a shared store at least, so other instances read the outcome. */
export const MIN_STORE_RETAIN_MS = 60_000;
/** A deadline whose store write failed is tried again after this long. */
const RETRY_MS = 1_000;

/**
 * The store side of the requester: every pending request is a record of the durable kernel
 * (`parley.correlate.request`, format 1), and every change of it is a pure step on the freshly read
 * record committed with one compare-and-set.
 */
export function createDurable(host: DurableHost): Durable {
  const { store, prefix, clock, events, tracker, storeRetainMs } = host;
  const key = (id: string): string => prefix + id;
  // graceMs 0: a record lives exactly until its stored deadlineAt (set below with the retention)
  const kernel = createKernel({ store, clock, owner: createOwnerId('correlate'), graceMs: 0 });
  const REQUESTS = requestCodec(host.self);
  /** The stored copy each record was last committed or read as: the basis of its next write. */
  const held = new WeakMap<Outgoing, Committed<StoredRequest>>();
  const keep = (record: Outgoing, stored: Committed<StoredRequest> | undefined): void => {
    extraOf(record).version = stored?.storeVersion ?? null;
    if (stored === undefined) held.delete(record);
    else held.set(record, stored);
  };
  const basisOf = (record: Outgoing) => {
    const basis = held.get(record);
    return basis === undefined ? {} : { basis };
  };

  /** Runs a kernel call with the record marked busy (watch notifications are ours); undefined when it threw. */
  async function busy<T>(record: Outgoing, task: () => Promise<T>): Promise<T | undefined> {
    const extra = extraOf(record);
    extra.busy = true;
    try {
      return await task();
    } catch (error) {
      events.emit('error', { code: 'store_failed', requestId: record.id, error });
      return undefined;
    } finally {
      extra.busy = false;
    }
  }

  /**
   * Runs the store writes of one record one after another: a settlement that starts while another
   * is being written waits for it, so the first decides and the second sees a settled record.
   */
  const chains = new WeakMap<Outgoing, Promise<unknown>>();
  function exclusive<T>(record: Outgoing, task: () => Promise<T>): Promise<T> {
    const previous = chains.get(record);
    const run = previous === undefined ? task() : previous.then(task);
    const tail = run.then(noop, noop);
    chains.set(record, tail);
    void tail.then(() => {
      if (chains.get(record) === tail) chains.delete(record);
    });
    return run;
  }

  const settle = settlementStep(storeRetainMs);

  async function commit(
    record: Outgoing,
    event: RequestEvent,
    response: unknown,
    reason: string | undefined,
    error: CorrelateError | undefined,
  ): Promise<boolean> {
    if (host.isClosed()) return false;
    const done = await busy(record, () =>
      kernel.apply(
        key(record.id),
        REQUESTS,
        settle,
        { event, response, reason },
        { ...basisOf(record), maxAttempts: 2 },
      ),
    );
    if (done?.ok !== true) {
      if (done !== undefined)
        events.emit('error', { code: 'store_failed', requestId: record.id, error: done.cause ?? done });
      if (record.state === 'pending' && !host.isClosed()) {
        // The caller gave up: settle here even though the store was not updated.
        const at = clock.now();
        const next = requestStep(record.state, record.deadlineAt, event, at);
        if (next?.event === 'cancel') host.finish(record, next.to, response, reason, error, at, true);
        else if (next?.event === 'expire' && record.deadline === undefined) host.arm(record, at + RETRY_MS);
      }
      return false;
    }
    const found = done.effects[0] as Settlement; // the step always reports what it found
    if (found.kind !== 'settled') {
      reconcileWith(record, done.committed);
      return false;
    }
    keep(record, done.committed);
    if (found.own) host.finish(record, found.to, response, reason, error, found.at, false);
    else host.finish(record, found.to, undefined, undefined, undefined, found.at, false);
    return found.own;
  }

  /** Brings a pending local record in line with what the store holds (`undefined`: gone or unreadable). */
  function reconcileWith(record: Outgoing, stored: Committed<StoredRequest> | undefined): void {
    if (record.state !== 'pending' || host.isClosed()) return;
    if (stored === undefined || stored.value.id !== record.id) {
      host.finish(record, 'expired', undefined, 'the stored record is gone', undefined, clock.now(), true);
      return;
    }
    keep(record, stored);
    const value = stored.value;
    if (value.state !== 'pending') {
      const at = value.settledAt ?? clock.now();
      host.finish(record, value.state, value.response, value.reason, undefined, at, true);
      return;
    }
    const deadlineAt = record.deadlineAt;
    applyStored(record, value);
    if (record.deadline === undefined || record.deadlineAt !== deadlineAt) host.arm(record);
  }

  /** Re-reads a record after another instance wrote it. */
  async function reconcile(record: Outgoing): Promise<void> {
    let stored: Committed<StoredRequest> | undefined;
    try {
      stored = await kernel.read(key(record.id), REQUESTS);
    } catch (error) {
      if (isParleyError(error, 'store_failed')) {
        events.emit('error', { code: 'store_failed', requestId: record.id, error: error.cause ?? error });
        if (record.state === 'pending' && !host.isClosed()) host.arm(record, clock.now() + RETRY_MS);
        return;
      }
      stored = undefined; // a record this correlator cannot read counts as gone
    }
    reconcileWith(record, stored);
  }

  function onChange(change: StoreChange): void {
    const record = tracker.get(change.key.slice(prefix.length));
    if (record === undefined || record.state !== 'pending' || host.isClosed()) return;
    const extra = extraOf(record);
    if (extra.busy) return;
    if (change.version !== null && change.version === extra.version) return;
    void reconcile(record);
  }

  /** Changes may have gone unheard (a store that lost its subscription): re-read every pending record. */
  function onResync(): void {
    if (host.isClosed()) return;
    for (const record of [...tracker.pendingRecords()]) {
      if (record.state === 'pending' && !extraOf(record).busy) void reconcile(record);
    }
  }

  /** Reports a stored request this correlator cannot read (left in the store for a person to look at). */
  function refused(id: string, cause: unknown): undefined {
    const error = new CorrelateError('store_failed', `The stored request "${id}" is corrupt; it is ignored`, {
      details: { requestId: id, key: key(id) },
      cause,
    });
    events.emit('error', { code: 'store_failed', requestId: id, error });
    return undefined;
  }

  /** The protocol of a stored request of this id, or undefined (another party's protocol: left alone). */
  function protocolOf(stored: StoredRequest, id: string): Protocol | undefined {
    if (stored.id !== id) return refused(id, `the record names request "${stored.id}"`);
    return host.protocols.get(stored.protocol);
  }

  const unwatch = store.watch?.(prefix, onChange, { onResync });

  return {
    async persistThenLaunch(record) {
      const first: KernelStep<StoredRequest, StoredRequest, boolean> = (current, next) =>
        current === undefined
          ? { value: next, effects: [true], deadlineAt: next.maxDeadlineAt + storeRetainMs }
          : { value: current, effects: [false] };
      const done = await busy(record, () => kernel.apply(key(record.id), REQUESTS, first, encode(record)));
      if (done?.ok === true && done.effects[0] === true) {
        keep(record, done.committed);
        if (!host.isClosed()) host.launch(record);
        return;
      }
      if (host.isClosed() || record.state !== 'pending') return;
      tracker.dropPending(record);
      const cause =
        done?.ok === false ? (done.cause ?? done) : new Error(`The key "${key(record.id)}" already exists`);
      if (done !== undefined)
        events.emit('error', { code: 'store_failed', requestId: record.id, error: cause });
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
    },

    commit(record, event, response, reason, error) {
      return exclusive(record, () => commit(record, event, response, reason, error));
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
      return exclusive(record, async () => {
        if (record.state !== 'pending') return false;
        const done = await busy(record, () =>
          kernel.apply(key(record.id), REQUESTS, move, null, basisOf(record)),
        );
        if (done?.ok === true && done.effects[0] === true) {
          keep(record, done.committed);
          return true;
        }
        if (done?.ok === true) reconcileWith(record, done.committed);
        else if (done !== undefined)
          events.emit('error', { code: 'store_failed', requestId: record.id, error: done.cause ?? done });
        return false;
      });
    },

    async load(id) {
      let stored: Committed<StoredRequest> | undefined;
      try {
        stored = await kernel.read(key(id), REQUESTS);
      } catch (error) {
        if (isParleyError(error, 'store_failed')) throw error.cause ?? error; // what the store threw
        return refused(id, error);
      }
      const protocol = stored === undefined ? undefined : protocolOf(stored.value, id);
      if (stored === undefined || protocol === undefined) return undefined;
      const known = tracker.get(id);
      if (known !== undefined) return known;
      const adopted = host.adopt(fromStored(stored.value, protocol, stored.storeVersion));
      keep(adopted, stored);
      return adopted;
    },

    async restore() {
      const listed = await kernel.list(prefix, REQUESTS);
      for (const { key: at, message } of listed.refused) refused(at.slice(prefix.length), message);
      let count = 0;
      for (const stored of listed.records) {
        const id = stored.key.slice(prefix.length);
        if (tracker.has(id)) continue;
        const protocol = protocolOf(stored.value, id);
        if (protocol === undefined) continue;
        const record = host.adopt(fromStored(stored.value, protocol, stored.storeVersion));
        keep(record, stored);
        if (record.state === 'pending') count++;
      }
      return count;
    },

    unwatch() {
      unwatch?.();
    },
  };
}

function noop(): void {}
