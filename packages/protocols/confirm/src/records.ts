import type { RecordCodec } from '@parley/core';
import { DECISION_CODEC, type DecisionRecord, PENDING_CODEC } from './internal/records.js';
import type { ConfirmationRecord } from './step.js';

export type { DecisionRecord } from './internal/records.js';

/**
 * Reads a gate's pending confirmations in the durable kernel of `@parley/core`: kind
 * `parley.confirm.pending`, format 2, stored at `<keyPrefix>pending:<confirmation id>` (the gate's
 * `keyPrefix`, default `confirm:`). Use it to show what waits without a gate
 * (`kernel.list('confirm:pending:', CONFIRMATION_RECORD)`); a record that fails its strict check is
 * refused (`corrupt_record`). Only a gate writes these records.
 *
 * @example
 * ```ts
 * import { createKernel, createMemoryStore } from '@parley/core';
 * import { CONFIRMATION_RECORD } from '@parley/confirm';
 *
 * const kernel = createKernel({ store: createMemoryStore() });
 * const pending = await kernel.list('confirm:pending:', CONFIRMATION_RECORD);
 * console.log(CONFIRMATION_RECORD.kind, pending.records.length); // parley.confirm.pending 0
 * ```
 */
export const CONFIRMATION_RECORD: RecordCodec<ConfirmationRecord> = PENDING_CODEC;

/**
 * Reads a gate's settled confirmations (its decisions) in the durable kernel of `@parley/core`:
 * kind `parley.confirm.decision`, format 2, stored at `<keyPrefix>decision:<confirmation id>`
 * (default prefix `confirm:`) for as long as the gate keeps decisions (`afterDecisionMs`).
 *
 * @example
 * ```ts
 * import { createKernel, createMemoryStore } from '@parley/core';
 * import { DECISION_RECORD } from '@parley/confirm';
 *
 * const kernel = createKernel({ store: createMemoryStore() });
 * const decision = await kernel.read('confirm:decision:c1', DECISION_RECORD);
 * console.log(DECISION_RECORD.kind, decision); // parley.confirm.decision undefined
 * ```
 */
export const DECISION_RECORD: RecordCodec<DecisionRecord> = DECISION_CODEC;
