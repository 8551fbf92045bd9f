import { ParleyError } from '@parley/core';

/**
 * The codes {@link BusError} can carry.
 *
 * @example
 * ```ts
 * import { BUS_ERROR_CODES } from '@parley/bus';
 *
 * console.log(BUS_ERROR_CODES.includes('closed')); // true
 * ```
 */
export const BUS_ERROR_CODES = ['closed', 'cancelled', 'channel_taken', 'invalid_argument'] as const;

/**
 * A code of {@link BusError}.
 *
 * @example
 * ```ts
 * import type { BusErrorCode } from '@parley/bus';
 *
 * const code: BusErrorCode = 'channel_taken';
 * ```
 */
export type BusErrorCode = (typeof BUS_ERROR_CODES)[number];

/**
 * The error thrown or rejected by `@parley/bus` when it is misused: receiving from a closed bus,
 * an aborted receive, a second adapter for one channel, a bad option.
 *
 * A peer's bad message is never an error: it comes back as a `rejected` publish result.
 *
 * @example
 * ```ts
 * import { createMessageBus } from '@parley/bus';
 * import { isParleyError } from '@parley/core';
 *
 * const bus = createMessageBus();
 * await bus.close();
 * try {
 *   await bus.receiveInbound();
 * } catch (err) {
 *   console.log(isParleyError(err, 'closed')); // true
 * }
 * ```
 */
export class BusError extends ParleyError<BusErrorCode> {}
