// The store part of a gate's call memory, kept through the durable kernel (@parley/core): one
// record per turn and call id, claimed before the executor runs and settled by the claim's holder.
import {
  type Clock,
  createKernel,
  createOwnerId,
  isParleyError,
  type JsonValue,
  type KernelStep,
  type RecordCodec,
  type Store,
} from '@parley/core';
import { type StoredCall, type StoredLookup, fromStored } from './remembered.js';

/** @internal A stored call as the kernel keeps it: a claim carries the id of the claim that wrote it. */
type CallRecord = StoredCall & { readonly claimId?: string };

const CALLS: RecordCodec<CallRecord> = {
  kind: 'parley.tools.call',
  version: 1,
  decode: (data) => {
    const state = typeof data === 'object' && data !== null ? Reflect.get(data, 'state') : undefined;
    return state === 'executing' || state === 'done' ? (data as unknown as CallRecord) : undefined; // checked in full by fromStored
  },
  encode: (value) => value as unknown as JsonValue, // plain JSON
};

/** @internal The stored calls of a gate: read, claim before running, settle or give the claim back. */
export interface StoredCalls {
  read(key: string, turn: number, id: string): Promise<StoredLookup>;
  /** Claims `key` for `claim`; `undefined` when claimed (keep the returned id), else what is stored. */
  claim(
    key: string,
    claim: StoredCall,
    turn: number,
    id: string,
  ): Promise<{ readonly claimId: string } | StoredLookup>;
  /** Writes `done` (or deletes, `undefined`) over the claim `claimId` still holds; nothing once it lost it. */
  settle(key: string, claimId: string, done: StoredCall | undefined): Promise<void>;
}

/** @internal */
export function createStoredCalls(store: Store, ttlMs: number | undefined, clock: Clock): StoredCalls {
  // graceMs 0: a record lives exactly `storeTtlMs` after its last write, as documented
  const kernel = createKernel({ store, clock, owner: createOwnerId('tools'), graceMs: 0 });
  const deadline = (now: number): { deadlineAt: number | null } => ({
    deadlineAt: ttlMs === undefined ? null : now + ttlMs,
  });
  const failed = (message: string): Error => new Error(message);

  async function read(key: string, turn: number, id: string): Promise<StoredLookup> {
    try {
      const found = await kernel.read(key, CALLS);
      return found === undefined
        ? { kind: 'none' }
        : fromStored(found.value as unknown as JsonValue, turn, id);
    } catch (error) {
      if (isParleyError(error, 'corrupt_record') || isParleyError(error, 'record_version')) {
        return { kind: 'corrupt', error };
      }
      throw error;
    }
  }

  return {
    read,
    async claim(key, claim, turn, id) {
      const claimId = createOwnerId('claim');
      const take: KernelStep<CallRecord, CallRecord, boolean> = (current, next, now) =>
        current === undefined
          ? { value: next, effects: [true], ...deadline(now) }
          : { value: current, effects: [false] };
      const done = await kernel.apply(key, CALLS, take, { ...claim, claimId });
      if (!done.ok) {
        if (done.code === 'corrupt_record' || done.code === 'record_version') return read(key, turn, id);
        throw failed(done.message);
      }
      return done.effects[0] === true ? { claimId } : read(key, turn, id);
    },
    async settle(key, claimId, next) {
      const settle: KernelStep<CallRecord, StoredCall | undefined, never> = (current, value, now) =>
        current?.state === 'executing' && current.claimId === claimId
          ? { value, effects: [], ...deadline(now) }
          : { value: current, effects: [] }; // the claim was lost (forgotten, taken again): not ours
      const done = await kernel.apply(key, CALLS, settle, next);
      if (!done.ok) throw failed(done.message);
    },
  };
}
