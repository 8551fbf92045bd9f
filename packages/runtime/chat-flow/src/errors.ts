import { ParleyError } from '@parley/core';

/**
 * The codes {@link ChatFlowError} can carry: misuse of the API (a bad option).
 *
 * @example
 * ```ts
 * import { CHAT_FLOW_ERROR_CODES } from '@parley/chat-flow';
 *
 * console.log(CHAT_FLOW_ERROR_CODES); // [ 'invalid_argument' ]
 * ```
 */
export const CHAT_FLOW_ERROR_CODES = ['invalid_argument'] as const;

/**
 * A code of {@link ChatFlowError}.
 *
 * @example
 * ```ts
 * import type { ChatFlowErrorCode } from '@parley/chat-flow';
 *
 * const code: ChatFlowErrorCode = 'invalid_argument';
 * ```
 */
export type ChatFlowErrorCode = (typeof CHAT_FLOW_ERROR_CODES)[number];

/**
 * The error `@parley/chat-flow` throws when it is misused, such as a limit that is not a positive
 * integer. What a chat sends and what a store returns are never errors: they are refused as data.
 * A flow's own misuse (a snapshot that cannot be restored) stays an `FsmError` from `@parley/fsm`.
 *
 * @example
 * ```ts
 * import { ChatFlowError, createFollowUps } from '@parley/chat-flow';
 * import { createMemoryStore, isParleyError } from '@parley/core';
 *
 * try {
 *   createFollowUps({ store: createMemoryStore(), send: async () => {}, maxArmed: 0 });
 * } catch (err) {
 *   console.log(err instanceof ChatFlowError, isParleyError(err, 'invalid_argument')); // true true
 * }
 * ```
 */
export class ChatFlowError extends ParleyError<ChatFlowErrorCode> {}
