import type { PlatformOrder } from '@parley/bus';

/** Discord's epoch (2015-01-01T00:00:00Z) in epoch ms: a snowflake's top 42 bits count from it. */
const DISCORD_EPOCH_MS = 1_420_070_400_000n;

/**
 * What one message id says about its place: its position in the platform's order, and the epoch
 * ms it was written at when the id carries it.
 *
 * @example
 * ```ts
 * import type { IdPlace } from '@parley/chat-sdk';
 *
 * const place: IdPlace = { position: [1_700_000_000, 100] };
 * ```
 */
export interface IdPlace {
  readonly position: readonly number[];
  readonly at?: number | undefined;
}

/**
 * Reads a platform's message id as its place in that platform's per-chat order, exactly (no
 * floating point), or `undefined` for an id of another shape:
 * - `discord`: a snowflake (a 64-bit integer as text) is `[ms since 2015, the low 22 bits]`, and
 *   its top bits are the ms it was written at; Discord hands out snowflakes in increasing order.
 * - `slack`: a `ts` ("1700000000.000100") is `[seconds, micro-units]`, unique and increasing per
 *   channel.
 * Any other platform gives no order (Teams' activity ids, for one, say nothing of it).
 *
 * @example
 * ```ts
 * import { placeOfId } from '@parley/chat-sdk';
 *
 * console.log(placeOfId('discord', '1446501120000000005')); // { position: [ 344872741699, 917509 ], at: 1764943141699 }
 * console.log(placeOfId('teams', '1:abc')); // undefined
 * ```
 */
export function placeOfId(platform: string, id: string): IdPlace | undefined {
  if (platform === 'discord') {
    if (!/^\d{1,20}$/.test(id)) return undefined;
    const snowflake = BigInt(id);
    if (snowflake >= 1n << 64n) return undefined;
    const ms = snowflake >> 22n;
    return {
      position: [Number(ms), Number(snowflake & 0x3fffffn)],
      at: Number(ms + DISCORD_EPOCH_MS),
    };
  }
  if (platform === 'slack') {
    const match = /^(\d{1,15})\.(\d{6})$/.exec(id);
    if (match === null) return undefined;
    return { position: [Number(match[1]), Number(match[2])] };
  }
  return undefined;
}

/** A message's {@link PlatformOrder} in its chat: scoped by the adapter's channel and the chat. */
export function orderOf(
  channel: string,
  chatId: string,
  platform: string,
  messageId: string,
): PlatformOrder | undefined {
  const place = placeOfId(platform, messageId);
  return place === undefined ? undefined : { scope: `${channel}:${chatId}`, position: place.position };
}
