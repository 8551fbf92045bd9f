import type { JsonValue } from '@parley/core';
import type { FailureKind } from './types.js';

/**
 * Why an attempt repeats the previous one: the failure's kind and message and, for an output that
 * failed its artifact schema, the missing fields and the reference `request_clarification` payload
 * (the previous report, the missing fields and a question) to re-spawn the agent with.
 *
 * @example
 * ```ts
 * import type { RetryContext } from '@parley/pipeline';
 *
 * const retry: RetryContext = {
 *   kind: 'invalid_output',
 *   message: 'invalidation: Required',
 *   missingFields: ['invalidation'],
 *   clarification: {
 *     previous_report: { thesis: 'up' },
 *     missing_fields: ['invalidation'],
 *     question: 'Fill in invalidation and deliver Bullish_Brief.json again, complete.',
 *   },
 * };
 * ```
 */
export interface RetryContext {
  readonly kind: FailureKind;
  readonly message: string;
  readonly missingFields?: readonly string[] | undefined;
  readonly clarification?:
    | {
        readonly previous_report: JsonValue;
        readonly missing_fields: readonly string[];
        readonly question: string;
      }
    | undefined;
}
