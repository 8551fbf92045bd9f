import type { JsonValue } from '@parley/core';
import { CHAIN_RECORDS } from './internal/chain.js';
import type { ChainPoint } from './verify.js';

/**
 * A session's chain as the store holds it, unchecked: its entries as JSON Lines (one line per
 * stored entry, whatever it holds) and the anchor a pruned chain links to. See {@link readStoredChain}.
 *
 * @example
 * ```ts
 * import type { StoredChain } from '@parley/ledger';
 *
 * const chain: StoredChain = { session: 'chat-1', lines: [], anchor: undefined };
 * ```
 */
export interface StoredChain {
  readonly session: string;
  readonly lines: readonly string[];
  readonly anchor: ChainPoint | undefined;
}

/**
 * Reads a chain's stored record (the value at `<keyPrefix><session>`, default prefix
 * `parley:ledger:`) without checking it, so that {@link verifyLedger} can name the first bad entry
 * of a tampered chain, which `Ledger.entries` refuses as a whole (`corrupt_record`). Pure: it
 * decodes the record's shape only; `undefined` when the value is not a chain record of this format.
 *
 * @example
 * ```ts
 * import { createLedger, readStoredChain, verifyLedger } from '@parley/ledger';
 * import { createMemoryStore } from '@parley/core';
 *
 * const store = createMemoryStore();
 * const ledger = createLedger({ store });
 * await ledger.append('chat-1', { kind: 'decision', confirmationId: 'c1', actionDigest: 'ab'.repeat(32), outcome: 'confirmed', reason: 'reply' });
 * const chain = readStoredChain(await store.get('parley:ledger:chat-1'));
 * console.log(chain?.lines.length, chain && verifyLedger(chain.lines).ok); // 1 true
 * ```
 */
export function readStoredChain(value: JsonValue | undefined): StoredChain | undefined {
  if (!isObject(value) || value.kind !== CHAIN_RECORDS.kind || value.version !== CHAIN_RECORDS.version)
    return undefined;
  const data = value.data;
  if (!isObject(data) || typeof data.session !== 'string' || !Array.isArray(data.entries)) return undefined;
  const anchor = data.anchor;
  const point =
    isObject(anchor) && typeof anchor.seq === 'number' && typeof anchor.hash === 'string'
      ? { seq: anchor.seq, hash: anchor.hash }
      : undefined;
  return { session: data.session, lines: data.entries.map((entry) => JSON.stringify(entry)), anchor: point };
}

function isObject(value: JsonValue | undefined): value is { readonly [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
