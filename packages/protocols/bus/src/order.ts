/**
 * A position in a platform's own per-chat order of messages: Telegram's `message_id`, Slack's
 * `ts`, Feishu's and DingTalk's create time. Adapters put one on each inbound message and on the
 * {@link SendReceipt} of each message they send, so a gate can tell whether a reply was written
 * after its prompt by the platform's order instead of by a tie between two clocks.
 *
 * Positions compare element by element (numbers only) and only within one `scope` (the chat, or
 * the thread where the platform numbers threads apart). An adapter gives as many elements as the
 * platform makes exact: `[message_id]` for Telegram, `[seconds, micros]` for a Slack `ts`,
 * `[createTimeMs]` for a platform that stamps only milliseconds.
 *
 * @example
 * ```ts
 * import type { PlatformOrder } from '@parley/bus';
 *
 * const order: PlatformOrder = { scope: 'tg:-100123', position: [4812] };
 * ```
 */
export interface PlatformOrder {
  /** What the position counts in; positions of different scopes are never compared. */
  readonly scope: string;
  /** One to {@link MAX_ORDER_POSITION_LENGTH} finite numbers, most significant first. */
  readonly position: readonly number[];
}

/**
 * The most elements a {@link PlatformOrder} position may have.
 *
 * @example
 * ```ts
 * import { MAX_ORDER_POSITION_LENGTH } from '@parley/bus';
 *
 * console.log(MAX_ORDER_POSITION_LENGTH); // 4
 * ```
 */
export const MAX_ORDER_POSITION_LENGTH = 4;

/**
 * How two {@link PlatformOrder}s compare: `a` is `before`, the `same` as, or `after` `b`, or
 * `unknown` when either is missing, their scopes differ, or one is finer than the other and
 * they agree on every element they share (order cannot be told, so a gate fails closed).
 *
 * @example
 * ```ts
 * import type { OrderComparison } from '@parley/bus';
 *
 * const comparison: OrderComparison = 'unknown';
 * ```
 */
export type OrderComparison = 'before' | 'same' | 'after' | 'unknown';

/**
 * Compares two platform order positions; see {@link OrderComparison}. Use it to decide whether
 * a reply (`a`) was written after a prompt (`b`): only `'after'` says so.
 *
 * @example
 * ```ts
 * import { comparePlatformOrder } from '@parley/bus';
 *
 * const prompt = { scope: 'tg:1', position: [41] };
 * const reply = { scope: 'tg:1', position: [42] };
 * console.log(comparePlatformOrder(reply, prompt)); // after
 * console.log(comparePlatformOrder(reply, { scope: 'tg:2', position: [1] })); // unknown
 * ```
 */
export function comparePlatformOrder(
  a: PlatformOrder | undefined,
  b: PlatformOrder | undefined,
): OrderComparison {
  if (!isPlatformOrder(a) || !isPlatformOrder(b) || a.scope !== b.scope) return 'unknown';
  const shared = Math.min(a.position.length, b.position.length);
  for (let index = 0; index < shared; index += 1) {
    const left = a.position[index] as number; // index < both lengths
    const right = b.position[index] as number;
    if (left < right) return 'before';
    if (left > right) return 'after';
  }
  return a.position.length === b.position.length ? 'same' : 'unknown';
}

/**
 * Whether `value` is a well-formed {@link PlatformOrder}: a non-empty scope of at most 512
 * characters and one to {@link MAX_ORDER_POSITION_LENGTH} finite numbers.
 *
 * @example
 * ```ts
 * import { isPlatformOrder } from '@parley/bus';
 *
 * console.log(isPlatformOrder({ scope: 'slack:C1', position: [1_700_000_000, 100] })); // true
 * console.log(isPlatformOrder({ scope: 'slack:C1', position: [] })); // false
 * ```
 */
export function isPlatformOrder(value: unknown): value is PlatformOrder {
  if (typeof value !== 'object' || value === null) return false;
  const { scope, position } = value as { scope?: unknown; position?: unknown }; // narrowed field by field below
  return (
    typeof scope === 'string' &&
    scope.length > 0 &&
    scope.length <= 512 &&
    Array.isArray(position) &&
    position.length > 0 &&
    position.length <= MAX_ORDER_POSITION_LENGTH &&
    position.every((item) => typeof item === 'number' && Number.isFinite(item))
  );
}
