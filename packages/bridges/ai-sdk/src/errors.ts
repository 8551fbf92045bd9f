import { ParleyError } from '@parley/core';

/**
 * The codes of {@link AiSdkBridgeError}: `invalid_argument` for a bad option (no tools, a tool
 * without `execute`, a name outside the tool set), `invalid_result` for an `approve` call given
 * something that is not a `generateText` result, `corrupt_record` / `record_version` /
 * `store_failed` for the bridge's stored records, and `call_id_reused` for an approved call whose id
 * is linked to another confirmation or action (the tool gate answers it `confirmation_failed`).
 *
 * @example
 * ```ts
 * import { AI_SDK_BRIDGE_ERROR_CODES } from '@parley/ai-sdk';
 *
 * console.log(AI_SDK_BRIDGE_ERROR_CODES); // [ 'invalid_argument', 'invalid_result', 'corrupt_record', 'record_version', 'store_failed', 'call_id_reused' ]
 * ```
 */
export const AI_SDK_BRIDGE_ERROR_CODES = [
  'invalid_argument',
  'invalid_result',
  'corrupt_record',
  'record_version',
  'store_failed',
  'call_id_reused',
] as const;

/**
 * One of {@link AI_SDK_BRIDGE_ERROR_CODES}.
 *
 * @example
 * ```ts
 * import type { AiSdkBridgeErrorCode } from '@parley/ai-sdk';
 *
 * const code: AiSdkBridgeErrorCode = 'invalid_argument';
 * ```
 */
export type AiSdkBridgeErrorCode = (typeof AI_SDK_BRIDGE_ERROR_CODES)[number];

/**
 * The error the bridge throws when it is misused (never for anything the model proposed).
 *
 * @example
 * ```ts
 * import { isParleyError } from '@parley/core';
 * import { AiSdkBridgeError } from '@parley/ai-sdk';
 *
 * const error = new AiSdkBridgeError('invalid_argument', 'no tools');
 * console.log(isParleyError(error, 'invalid_argument')); // true
 * ```
 */
export class AiSdkBridgeError extends ParleyError<AiSdkBridgeErrorCode> {}
