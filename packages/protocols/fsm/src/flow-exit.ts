// What a failed exit condition says: read by the submit step and by the restore check of a stored step.
import type { ExitVerdict } from './flow-types.js';

/**
 * @internal The reason and missing fields of a failed exit verdict (`fallback` when it gave no reason);
 * the restore check reads a stored step with it too.
 */
export function exitFailure(
  verdict: Exclude<ExitVerdict, true>,
  fallback: string,
): { readonly reason: string; readonly missingFields: readonly string[] } {
  if (typeof verdict === 'object')
    return { reason: verdict.reason, missingFields: [...verdict.missingFields] };
  return { reason: typeof verdict === 'string' ? verdict : fallback, missingFields: [] };
}
