import type { Committed, Kernel, KernelStep, RecordCodec } from '@parley/core';
import { CorrelateError } from '../errors.js';
import type { Protocol } from '../protocol.js';
import type { DurableHost } from './durable-types.js';
import { extraOf, type Outgoing } from './records.js';
import type { Settlement, SettleEvent } from './settle-step.js';
import type { StoredRequest } from './stored-request.js';

/** What the store side of one requester keeps; made once per requester. */
export interface DurableState {
  readonly host: DurableHost;
  readonly kernel: Kernel;
  readonly requests: RecordCodec<StoredRequest>;
  /** The stored copy each record was last committed or read as: the basis of its next write. */
  readonly held: WeakMap<Outgoing, Committed<StoredRequest>>;
  /** The tail of each record's chain of store writes (see {@link exclusive}). */
  readonly chains: WeakMap<Outgoing, Promise<unknown>>;
  readonly settle: KernelStep<StoredRequest, SettleEvent, Settlement>;
}

/** The store key of request `id`. */
export function keyOf(d: DurableState, id: string): string {
  return d.host.prefix + id;
}

/** Remembers the stored copy of a record (or that it has none) as the basis of its next write. */
export function keep(d: DurableState, record: Outgoing, stored: Committed<StoredRequest> | undefined): void {
  extraOf(record).version = stored?.storeVersion ?? null;
  if (stored === undefined) d.held.delete(record);
  else d.held.set(record, stored);
}

/** The kernel options naming a record's basis, when one is held. */
export function basisOf(d: DurableState, record: Outgoing) {
  const basis = d.held.get(record);
  return basis === undefined ? {} : { basis };
}

/** Runs a kernel call with the record marked busy (watch notifications are ours); undefined when it threw. */
export async function busy<T>(
  d: DurableState,
  record: Outgoing,
  task: () => Promise<T>,
): Promise<T | undefined> {
  const extra = extraOf(record);
  extra.busy = true;
  try {
    return await task();
  } catch (error) {
    d.host.events.emit('error', { code: 'store_failed', requestId: record.id, error });
    return undefined;
  } finally {
    extra.busy = false;
  }
}

/**
 * Runs the store writes of one record one after another: a settlement that starts while another
 * is being written waits for it, so the first decides and the second sees a settled record.
 */
export function exclusive<T>(d: DurableState, record: Outgoing, task: () => Promise<T>): Promise<T> {
  const { chains } = d;
  const previous = chains.get(record);
  const run = previous === undefined ? task() : previous.then(task);
  const tail = run.then(noop, noop);
  chains.set(record, tail);
  void tail.then(() => {
    if (chains.get(record) === tail) chains.delete(record);
  });
  return run;
}

/** Reports a stored request this correlator cannot read (left in the store for a person to look at). */
export function refused(d: DurableState, id: string, cause: unknown): undefined {
  const error = new CorrelateError('store_failed', `The stored request "${id}" is corrupt; it is ignored`, {
    details: { requestId: id, key: keyOf(d, id) },
    cause,
  });
  d.host.events.emit('error', { code: 'store_failed', requestId: id, error });
  return undefined;
}

/** The protocol of a stored request of this id, or undefined (another party's protocol: left alone). */
export function protocolOf(d: DurableState, stored: StoredRequest, id: string): Protocol | undefined {
  if (stored.id !== id) return refused(d, id, `the record names request "${stored.id}"`);
  return d.host.protocols.get(stored.protocol);
}

function noop(): void {}
