import { createRecentMap } from '@parley/core';
import { BusError } from './errors.js';
import { MAX_REMEMBERED_ID_LENGTH, toRememberedId } from './remembered-id.js';
import type { InboundInterceptor } from './types.js';
import type { InboundKind, InboundMessage } from './message.js';

/**
 * Why the hygiene interceptor dropped a message.
 *
 * @example
 * ```ts
 * import { HYGIENE_DROP_REASONS } from '@parley/bus';
 *
 * console.log(HYGIENE_DROP_REASONS.includes('duplicate')); // true
 * ```
 */
export const HYGIENE_DROP_REASONS = ['from_self', 'bot', 'kind', 'duplicate', 'too_old'] as const;

/**
 * One of {@link HYGIENE_DROP_REASONS}.
 *
 * @example
 * ```ts
 * import type { HygieneDropReason } from '@parley/bus';
 *
 * const reason: HygieneDropReason = 'from_self';
 * ```
 */
export type HygieneDropReason = (typeof HYGIENE_DROP_REASONS)[number];

/**
 * Options for {@link createHygieneInterceptor}; the defaults suit a chat bot.
 *
 * @example
 * ```ts
 * import type { HygieneOptions } from '@parley/bus';
 *
 * const options: HygieneOptions = { dropBots: false, maxAgeMs: 10 * 60_000 };
 * ```
 */
export interface HygieneOptions {
  /** Drop the bot's own messages (`fromSelf`); true by default. */
  readonly dropFromSelf?: boolean;
  /** Drop messages from any bot (`senderIsBot`); true by default. */
  readonly dropBots?: boolean;
  /** Kinds to drop; `['edit', 'recall']` by default. */
  readonly dropKinds?: readonly InboundKind[];
  /**
   * How many recent event ids are remembered to drop redeliveries; 10 000 by default, 0 turns it
   * off. Each is kept as at most {@link MAX_REMEMBERED_ID_LENGTH} + 1 characters (a longer one as
   * its SHA-256, see {@link toRememberedId}), so the memory holds at most `maxEventIds × 65`
   * characters, however long the ids its senders choose.
   */
  readonly maxEventIds?: number;
  /** Drop messages whose `createdAt` is older than this when received; off by default. */
  readonly maxAgeMs?: number;
  /** Hears every drop, e.g. for metrics. */
  readonly onDrop?: (message: InboundMessage, reason: HygieneDropReason) => void;
}

/**
 * The interceptor {@link createHygieneInterceptor} returns: an `InboundInterceptor` that also
 * tells how much its redelivery memory holds (for metrics, and to check its bound).
 *
 * @example
 * ```ts
 * import { createHygieneInterceptor, type HygieneInterceptor } from '@parley/bus';
 *
 * const hygiene: HygieneInterceptor = createHygieneInterceptor({ maxEventIds: 100 });
 * console.log(hygiene.remembered); // { ids: 0, chars: 0 }
 * ```
 */
export interface HygieneInterceptor extends InboundInterceptor {
  /** The event ids remembered now, and their characters together (each at most 65). */
  readonly remembered: { readonly ids: number; readonly chars: number };
}

/**
 * Creates an interceptor that consumes what a bot should never act on: its own echoes, other
 * bots, edits and recalls, redelivered event ids (counted once) and, optionally, stale events.
 *
 * Add it first, before any other interceptor, so that a redelivered "确认" or an edit into one
 * is never read as a new reply.
 *
 * @throws BusError `invalid_argument` for a negative or fractional `maxEventIds` or a bad `maxAgeMs`.
 * @example
 * ```ts
 * import { createHygieneInterceptor, createMessageBus } from '@parley/bus';
 *
 * const bus = createMessageBus();
 * bus.intercept(createHygieneInterceptor());
 * const input = { channel: 'feishu', chatId: 'oc_1', senderId: 'ou_a', text: 'hi', eventId: 'ev_1' };
 * console.log((await bus.publishInbound(input)).status); // queued
 * console.log((await bus.publishInbound(input)).status); // intercepted
 * ```
 */
export function createHygieneInterceptor(options: HygieneOptions = {}): HygieneInterceptor {
  const dropFromSelf = options.dropFromSelf ?? true;
  const dropBots = options.dropBots ?? true;
  const dropKinds = new Set<InboundKind>(options.dropKinds ?? ['edit', 'recall']);
  const maxEventIds = options.maxEventIds ?? 10_000;
  const { maxAgeMs, onDrop } = options;
  if (!Number.isInteger(maxEventIds) || maxEventIds < 0) {
    throw new BusError('invalid_argument', `maxEventIds must be an integer ≥ 0, got ${maxEventIds}`, {
      details: { maxEventIds },
    });
  }
  if (maxAgeMs !== undefined && !(Number.isFinite(maxAgeMs) && maxAgeMs > 0)) {
    throw new BusError('invalid_argument', `maxAgeMs must be a finite number > 0, got ${maxAgeMs}`, {
      details: { maxAgeMs },
    });
  }
  let chars = 0; // of every key held, together
  // maxEventIds 0 remembers nothing (the check below is skipped), so the map's cap of 1 is never used
  const seen = createRecentMap<string, true>({
    maxEntries: Math.max(1, maxEventIds),
    onEvict: (key) => {
      chars -= key.length;
    },
  });

  function reasonFor(message: InboundMessage): HygieneDropReason | undefined {
    if (dropFromSelf && message.fromSelf === true) return 'from_self';
    if (dropBots && message.senderIsBot === true) return 'bot';
    if (dropKinds.has(message.kind)) return 'kind';
    if (
      maxAgeMs !== undefined &&
      message.createdAt !== undefined &&
      message.receivedAt - message.createdAt > maxAgeMs
    ) {
      return 'too_old';
    }
    if (maxEventIds > 0 && message.eventId !== undefined) {
      const key = toRememberedId(`${message.channel}\u0000${message.eventId}`); // bounded in bytes
      if (seen.has(key)) return 'duplicate';
      seen.add(key, true); // forgets the oldest past maxEventIds
      chars += key.length;
    }
    return undefined;
  }

  return {
    name: 'hygiene',
    get remembered() {
      return { ids: seen.size, chars };
    },
    intercept(message) {
      const reason = reasonFor(message);
      if (reason === undefined) return false;
      onDrop?.(message, reason);
      return true;
    },
  };
}
