// What a stored flow session refuses with: its codes and the refusal's shape.

/**
 * Every code a stored flow session refuses with (as data, never thrown).
 *
 * | code | when |
 * |---|---|
 * | `not_found` | `resume`: no record under the key |
 * | `exists` | `start`: a record is already there |
 * | `corrupt_record` | `resume`: the record is not a session of this flow (shape, snapshot, draft, data) |
 * | `foreign_version` | `resume`: another record format, another flow or flow version without migration |
 * | `expired` | the stored `expiresAt` has passed (checked at the moment of deciding) |
 * | `conflict` | the committed record moved past the revision this handle saw (another writer); the handle is stale from then on |
 * | `stale` | a write on a handle that lost a race: resume (or `acquire`) again |
 * | `lease_held` | another owner's lease on the session is valid (another replica's turn): nothing was written |
 * | `lease_lost` | a write under a lease that expired or was taken over: nothing was written |
 * | `too_large` | the record would exceed the kernel's record size limit: nothing was written |
 * | `store_failed` | the store kept failing through every retry of the write |
 * | `closed` | the handle was closed (also ends a waiting effect retry) |
 *
 * @example
 * ```ts
 * import { FLOW_SESSION_REFUSAL_CODES } from '@parley/chat-flow';
 *
 * console.log(FLOW_SESSION_REFUSAL_CODES.includes('conflict')); // true
 * ```
 */
export const FLOW_SESSION_REFUSAL_CODES = [
  'not_found',
  'exists',
  'corrupt_record',
  'foreign_version',
  'expired',
  'conflict',
  'stale',
  'lease_held',
  'lease_lost',
  'too_large',
  'store_failed',
  'closed',
] as const;

/**
 * A code of {@link FLOW_SESSION_REFUSAL_CODES}.
 *
 * @example
 * ```ts
 * import type { FlowSessionRefusalCode } from '@parley/chat-flow';
 *
 * const code: FlowSessionRefusalCode = 'stale';
 * ```
 */
export type FlowSessionRefusalCode = (typeof FLOW_SESSION_REFUSAL_CODES)[number];

/**
 * A stored flow session's "no": nothing was written and the handle's state did not move.
 *
 * @example
 * ```ts
 * import type { FlowSessionRefusal } from '@parley/chat-flow';
 *
 * const lost: FlowSessionRefusal = { ok: false, code: 'conflict', message: 'another writer', reason: 'another writer', version: 7 };
 * ```
 */
export interface FlowSessionRefusal {
  readonly ok: false;
  readonly code: FlowSessionRefusalCode;
  /** Why, in words for a person or a log. */
  readonly message: string;
  /** @deprecated Use `message` (the same text); removed in the next minor version. */
  readonly reason: string;
  /** `conflict`: the version the store holds now (`null`: deleted). */
  readonly version?: number | null;
  /** `store_failed`: the writes tried. */
  readonly attempts?: number;
  /** `store_failed`: the last error of the store. */
  readonly cause?: unknown;
}
