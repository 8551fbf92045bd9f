import { ParleyError } from '@parley/core';

/**
 * The codes {@link PipelineError} can carry: a definition or option the host got wrong (thrown),
 * and, handed to a cron trigger's `onError` (never thrown), a store that failed (`store_failed`)
 * or a trigger record it will not trust (`corrupt_record`).
 *
 * Use it to build exhaustive handlers. What a node, a peer or the store gets wrong at run time is
 * never thrown: it becomes a node failure, an event, an `onError` call or a `{ ok: false }` result.
 *
 * @example
 * ```ts
 * import { PIPELINE_ERROR_CODES } from '@parley/pipeline';
 *
 * console.log(PIPELINE_ERROR_CODES.includes('invalid_definition')); // true
 * ```
 */
export const PIPELINE_ERROR_CODES = [
  'invalid_definition',
  'invalid_argument',
  'store_failed',
  'corrupt_record',
] as const;

/**
 * A code of {@link PipelineError}.
 *
 * @example
 * ```ts
 * import type { PipelineErrorCode } from '@parley/pipeline';
 *
 * const code: PipelineErrorCode = 'invalid_argument';
 * ```
 */
export type PipelineErrorCode = (typeof PIPELINE_ERROR_CODES)[number];

/**
 * The error `@parley/pipeline` throws: `details.issues` lists every problem of a definition.
 *
 * Check it with `isParleyError(err, code)` rather than `instanceof`.
 *
 * @example
 * ```ts
 * import { isParleyError } from '@parley/core';
 * import { definePipeline } from '@parley/pipeline';
 *
 * try {
 *   definePipeline({ name: 'p', nodes: [{ id: 'a', kind: 'task', agent: 'x', dependsOn: ['nowhere'] }] });
 * } catch (err) {
 *   console.log(isParleyError(err, 'invalid_definition')); // true
 * }
 * ```
 */
export class PipelineError extends ParleyError<PipelineErrorCode> {}

/**
 * The codes of a run's `{ ok: false }` result and of the `refused` event: a run that cannot be
 * started, resumed or decided as asked, or a stored record the runner will not trust.
 *
 * @example
 * ```ts
 * import { RUN_REFUSAL_CODES } from '@parley/pipeline';
 *
 * console.log(RUN_REFUSAL_CODES.includes('corrupt_record')); // true
 * ```
 */
export const RUN_REFUSAL_CODES = [
  'run_exists',
  'unknown_run',
  'already_running',
  'definition_mismatch',
  'corrupt_record',
  'too_many_runs',
  'store_failed',
  'closed',
  'unknown_node',
  'not_waiting',
  'expired',
  'not_recorded',
] as const;

/**
 * A code of {@link RUN_REFUSAL_CODES}.
 *
 * @example
 * ```ts
 * import type { RunRefusalCode } from '@parley/pipeline';
 *
 * const code: RunRefusalCode = 'run_exists';
 * ```
 */
export type RunRefusalCode = (typeof RUN_REFUSAL_CODES)[number];
