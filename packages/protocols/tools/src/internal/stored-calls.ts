// The store part of a gate's call memory, kept as claims of the durable kernel (@parley/core): a call
// is claimed before its executor runs, settled with its outcome, or given back when it did not run.
import {
  CLAIM_RECORDS,
  type ClaimRecord,
  type Clock,
  createKernel,
  createOwnerId,
  type HeldClaim,
  isParleyError,
  type JsonValue,
  MAX_TTL_MS,
  type RecordCodec,
  type Store,
} from '@parley/core';
import { ToolsError } from '../errors.js';
import { type StoredCall, type StoredLookup, fromStored } from './remembered.js';

/** The format written before calls were kernel claims (kind `parley.tools.call`, format 1): still read. */
const PREVIOUS_CALLS: RecordCodec<JsonValue> = {
  kind: 'parley.tools.call',
  version: 1,
  decode: (data) => data as JsonValue, // a kernel record's data is JSON; checked in full by fromStored
  encode: (value) => value,
};

/** @internal The stored calls of a gate: read, claim before running, settle or give the claim back. */
export interface StoredCalls {
  read(key: string, turn: number, id: string): Promise<StoredLookup>;
  /** Claims `key` for the call; the held claim when this gate may run it, else what is stored. */
  claim(
    key: string,
    content: string,
    turn: number,
    id: string,
  ): Promise<{ readonly held: HeldClaim } | StoredLookup>;
  /** Records `done` under the held claim, or gives the claim back (`undefined`: the call did not run). */
  settle(held: HeldClaim, done: StoredCall | undefined): Promise<void>;
}

/** @internal */
export function createStoredCalls(store: Store, ttlMs: number | undefined, clock: Clock): StoredCalls {
  // graceMs 0: a record lives exactly `storeTtlMs` after its claim, as documented
  const kernel = createKernel({ store, clock, owner: createOwnerId('tools'), graceMs: 0 });
  const lifetimeMs = ttlMs ?? MAX_TTL_MS; // no storeTtlMs: kept as long as a store keeps anything

  async function read(key: string, turn: number, id: string): Promise<StoredLookup> {
    try {
      const found = await kernel.read(key, CLAIM_RECORDS);
      return found === undefined ? { kind: 'none' } : fromClaim(found.value, turn, id);
    } catch (error) {
      if (!isParleyError(error, 'corrupt_record')) return refused(error);
      return readPrevious(key, turn, id, error);
    }
  }

  /** A record of the previous format, or the first refusal when it is not one either. */
  async function readPrevious(key: string, turn: number, id: string, first: unknown): Promise<StoredLookup> {
    try {
      const found = await kernel.read(key, PREVIOUS_CALLS);
      return found === undefined ? { kind: 'none' } : fromStored(found.value, turn, id);
    } catch (error) {
      return refused(isParleyError(error, 'record_version') ? error : first);
    }
  }

  return {
    read,
    async claim(key, content, turn, id) {
      const effect = { id, digest: content, leaseMs: lifetimeMs, retainMs: lifetimeMs };
      const found = await kernel.claim(key, effect);
      if ('ok' in found) {
        if (found.code === 'corrupt_record' || found.code === 'record_version') return read(key, turn, id);
        throw new Error(found.message);
      }
      return found.status === 'claimed' ? { held: found.claim } : read(key, turn, id);
    },
    async settle(held, done) {
      const outcome = done as unknown as JsonValue; // plain JSON (a result that is not fails the write)
      const result = done === undefined ? await kernel.abandon(held) : await kernel.settle(held, outcome);
      // a claim lost (expired, forgotten and taken again) is not this gate's to write any more
      if (!result.ok && result.code !== 'lease_lost' && result.code !== 'claim_conflict') {
        throw new Error(result.message);
      }
    },
  };
}

/** What a claim record says of the call: its outcome once settled, else that it is executing. */
function fromClaim(record: ClaimRecord, turn: number, id: string): StoredLookup {
  if (record.settled) return fromStored(record.result, turn, id);
  if (record.id !== id) {
    const error = new ToolsError('invalid_snapshot', `The store holds a claim of "${record.id}" for "${id}"`);
    return { kind: 'corrupt', error };
  }
  return { kind: 'executing', tool: toolOf(record.digest), content: record.digest };
}

/** The tool of a call's content (`canonicalJson({ args, tool })`, its claim's digest). */
function toolOf(content: string): string {
  try {
    const tool: unknown = Reflect.get(Object(JSON.parse(content)), 'tool');
    return typeof tool === 'string' ? tool : 'another call';
  } catch {
    return 'another call';
  }
}

function refused(error: unknown): StoredLookup {
  if (isParleyError(error, 'corrupt_record') || isParleyError(error, 'record_version')) {
    return { kind: 'corrupt', error };
  }
  throw error;
}
