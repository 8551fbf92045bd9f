/** Discord's epoch (2015-01-01T00:00:00Z) in epoch ms. */
const DISCORD_EPOCH_MS = 1_420_070_400_000;

/**
 * The snowflake Discord would give a thing made at `ms` (epoch ms), the `seq`-th in that
 * millisecond: what a test uses as the id of a message it sends at a known time.
 *
 * @example
 * ```ts
 * import { snowflakeAt } from '@parley/chat-sdk/testing';
 *
 * console.log(snowflakeAt(Date.UTC(2015, 0, 1, 0, 0, 0, 1), 5)); // 4194309
 * ```
 */
export function snowflakeAt(ms: number, seq = 0): string {
  return ((BigInt(ms - DISCORD_EPOCH_MS) << 22n) | BigInt(seq)).toString();
}
