import { BusError } from './errors.js';

/**
 * Where a conversation happens: the channel (platform), the chat, and the thread when the
 * channel has threads.
 *
 * @example
 * ```ts
 * import type { SessionAddress } from '@parley/bus';
 *
 * const address: SessionAddress = { channel: 'feishu', chatId: 'oc_123', threadId: 'omt_9' };
 * ```
 */
export interface SessionAddress {
  readonly channel: string;
  readonly chatId: string;
  readonly threadId?: string | undefined;
}

/**
 * Builds the session key of an address: `channel:chatId` or `channel:chatId:threadId`, with `%`
 * and `:` inside a part escaped so that two different addresses never share a key.
 *
 * Use it wherever state is kept per conversation (pending confirmations, flows): every message
 * on the bus carries the same key in `sessionKey`.
 *
 * @example
 * ```ts
 * import { sessionKeyOf } from '@parley/bus';
 *
 * console.log(sessionKeyOf({ channel: 'feishu', chatId: 'oc_123' })); // feishu:oc_123
 * console.log(sessionKeyOf({ channel: 'slack', chatId: 'C1', threadId: '1700.1' })); // slack:C1:1700.1
 * ```
 */
export function sessionKeyOf(address: SessionAddress): string {
  return sessionKeyFrom(address.channel, address.chatId, address.threadId);
}

/**
 * @internal `sessionKeyOf` of an address given by its parts. The bus's own paths call this, so
 * the code that builds keys sees only strings, whatever shapes of message objects pass through
 * the bus (an inbound input, an outbound one, the host's own address objects).
 */
export function sessionKeyFrom(channel: string, chatId: string, threadId: string | undefined): string {
  const base = `${escapePart(channel)}:${escapePart(chatId)}`;
  return threadId === undefined ? base : `${base}:${escapePart(threadId)}`;
}

/**
 * Reads a session key back into its address; the inverse of {@link sessionKeyOf}.
 *
 * Use it when only the key was kept (a persisted confirmation) and a message must be sent back
 * to that conversation.
 *
 * @throws BusError `invalid_argument` when the text is not a session key.
 * @example
 * ```ts
 * import { parseSessionKey } from '@parley/bus';
 *
 * console.log(parseSessionKey('feishu:oc_123')); // { channel: 'feishu', chatId: 'oc_123' }
 * ```
 */
export function parseSessionKey(key: string): SessionAddress {
  const parts = typeof key === 'string' ? key.split(':') : [];
  if (parts.length < 2 || parts.length > 3 || parts.some((part) => part === '' || BAD_ESCAPE.test(part))) {
    throw new BusError('invalid_argument', `Not a session key: ${String(key)}`, {
      details: { key: String(key) },
    });
  }
  const [channel, chatId, threadId] = parts.map(unescapePart) as [string, string, string | undefined];
  return threadId === undefined ? { channel, chatId } : { channel, chatId, threadId };
}

const BAD_ESCAPE = /%(?!25|3A)/;

function escapePart(part: string): string {
  return part.includes('%') || part.includes(':') ? part.replaceAll('%', '%25').replaceAll(':', '%3A') : part;
}

function unescapePart(part: string): string {
  return part.includes('%') ? part.replaceAll('%3A', ':').replaceAll('%25', '%') : part;
}
