import type { JsonValue, StoreChange, StoreEntry } from '@parley/core';
import type { RequestEvent } from '@parley/fsm';
import { CorrelateError } from '../errors.js';
import type { Protocol } from '../protocol.js';
import type { Durable, DurableHost } from './durable-types.js';
import { extraOf, type Outgoing } from './records.js';
import { type Step, step } from './step.js';
import { applyStored, decode, encode, fromStored, type StoredRequest } from './stored-request.js';

/** Settled records stay this long in a shared store at least, so other instances read the outcome. */
export const MIN_STORE_RETAIN_MS = 60_000;
/** A deadline whose store write failed is tried again after this long. */
const RETRY_MS = 1_000;
/** How a compare-and-set of a record ended. */
type WriteOutcome = 'written' | 'conflict' | 'failed';

/** The store side of the requester: every pending request is written, and settled by compare-and-set. */
export function createDurable(host: DurableHost): Durable {
  const { store, prefix, clock, events, tracker, storeRetainMs } = host;
  const key = (id: string): string => prefix + id;

  /**
   * Compare-and-set of this record: `conflict` when another instance changed it first (the local
   * record is then reconciled with the store), `failed` when the store could not be written.
   */
  async function write(record: Outgoing, value: JsonValue | undefined, ttlMs: number): Promise<WriteOutcome> {
    const extra = extraOf(record);
    extra.busy = true;
    try {
      const result = await store.compareAndSet(key(record.id), extra.version, value, { ttlMs });
      extra.busy = false;
      if (result.ok) {
        extra.version = result.version;
        return 'written';
      }
    } catch (error) {
      extra.busy = false;
      events.emit('error', { code: 'store_error', requestId: record.id, error });
      return 'failed';
    }
    await reconcile(record);
    return 'conflict';
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

  async function commit(
    record: Outgoing,
    event: RequestEvent,
    response: unknown,
    reason: string | undefined,
    error: CorrelateError | undefined,
  ): Promise<boolean> {
    // A conflict that leaves the request pending (another instance only moved its deadline) is
    // written again once with the version just read; a second conflict or a failure is reported.
    // Each write is decided at its own time against the deadline last read from the store.
    let settledAt: number;
    let next: Step | undefined;
    let outcome: WriteOutcome;
    let writes = 0;
    do {
      if (host.isClosed()) return false;
      settledAt = clock.now();
      next = step(record.state, record.deadlineAt, event, settledAt);
      if (next === undefined) return false; // settled by another write
      const own = next.event === event;
      outcome = await write(
        record,
        encode(record, {
          state: next.to,
          settledAt,
          reason: own ? reason : undefined,
          response: own ? response : undefined,
        }),
        storeRetainMs,
      );
      writes++;
    } while (outcome === 'conflict' && writes < 2);
    const own = next.event === event;
    if (outcome === 'written') {
      if (own) host.finish(record, next.to, response, reason, error, settledAt, false);
      else host.finish(record, next.to, undefined, undefined, undefined, settledAt, false);
      return own;
    }
    if (record.state === 'pending' && !host.isClosed()) {
      // The caller gave up: settle here even though the store was not updated.
      if (next.event === 'cancel') host.finish(record, next.to, response, reason, error, settledAt, true);
      else if (next.event === 'expire' && record.deadline === undefined)
        host.arm(record, clock.now() + RETRY_MS);
    }
    return false;
  }

  /** Brings a local record in line with the store after another instance wrote it. */
  async function reconcile(record: Outgoing): Promise<void> {
    let entry: StoreEntry | undefined;
    try {
      entry = await store.getEntry(key(record.id));
    } catch (error) {
      events.emit('error', { code: 'store_error', requestId: record.id, error });
      if (record.state === 'pending' && !host.isClosed()) host.arm(record, clock.now() + RETRY_MS);
      return;
    }
    if (record.state !== 'pending' || host.isClosed()) return;
    const stored = entry === undefined ? undefined : decode(entry.value, record.id, host.self);
    if (entry === undefined || stored === undefined) {
      host.finish(record, 'expired', undefined, 'the stored record is gone', undefined, clock.now(), true);
      return;
    }
    extraOf(record).version = entry.version;
    if (stored.state !== 'pending') {
      host.finish(
        record,
        stored.state,
        stored.response,
        stored.reason,
        undefined,
        stored.settledAt ?? clock.now(),
        true,
      );
      return;
    }
    const deadlineAt = record.deadlineAt;
    applyStored(record, stored);
    if (record.deadline === undefined || record.deadlineAt !== deadlineAt) host.arm(record);
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

  /**
   * A stored record of this correlator, read strictly; undefined when it belongs to a protocol
   * not known here (another party's, left alone) or is corrupt (reported as `store_error`, left in
   * the store for a person to look at, and never adopted: a reply to it is an unknown request).
   */
  function readStrictly(
    entry: StoreEntry,
    id: string,
  ): { stored: StoredRequest; protocol: Protocol } | undefined {
    const stored = decode(entry.value, id, host.self);
    if (stored === undefined) {
      const error = new CorrelateError(
        'store_error',
        `The stored request "${id}" is corrupt; it is ignored`,
        {
          details: { requestId: id, key: entry.key },
        },
      );
      events.emit('error', { code: 'store_error', requestId: id, error });
      return undefined;
    }
    const protocol = host.protocols.get(stored.protocol);
    return protocol === undefined ? undefined : { stored, protocol };
  }

  const unwatch = store.watch?.(prefix, onChange, { onResync });

  return {
    async persistThenLaunch(record) {
      const extra = extraOf(record);
      extra.busy = true;
      try {
        const result = await store.compareAndSet(key(record.id), null, encode(record), {
          ttlMs: record.maxDeadlineAt - record.createdAt + storeRetainMs,
        });
        if (!result.ok) throw new Error(`The key "${key(record.id)}" already exists`);
        extra.version = result.version;
      } catch (cause) {
        extra.busy = false;
        if (host.isClosed() || record.state !== 'pending') return;
        tracker.dropPending(record);
        events.emit('error', { code: 'store_error', requestId: record.id, error: cause });
        const error = new CorrelateError(
          'store_error',
          `Request "${record.id}" could not be written to the store`,
          {
            details: { requestId: record.id },
            cause,
          },
        );
        record.resolve?.(Promise.reject(error));
        record.resolve = undefined;
        return;
      }
      extra.busy = false;
      if (!host.isClosed()) host.launch(record);
    },

    commit(record, event, response, reason, error) {
      return exclusive(record, () => commit(record, event, response, reason, error));
    },

    extend(record, deadlineAt, human) {
      if (extraOf(record).version === null) return Promise.resolve(true);
      return exclusive(record, async () =>
        record.state !== 'pending'
          ? false
          : (await write(
              record,
              encode(record, { deadlineAt, human }),
              record.maxDeadlineAt - clock.now() + storeRetainMs,
            )) === 'written',
      );
    },

    async load(id) {
      const entry = await store.getEntry(key(id));
      const read = entry === undefined ? undefined : readStrictly(entry, id);
      if (entry === undefined || read === undefined) return undefined;
      return tracker.get(id) ?? host.adopt(fromStored(read.stored, read.protocol, entry.version));
    },

    async restore() {
      let count = 0;
      for await (const entry of store.list(prefix)) {
        const id = entry.key.slice(prefix.length);
        if (tracker.has(id)) continue;
        const read = readStrictly(entry, id);
        if (read === undefined) continue;
        const record = host.adopt(fromStored(read.stored, read.protocol, entry.version));
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
