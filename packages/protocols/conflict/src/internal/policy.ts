import { ConflictError } from '../errors.js';
import type { ConflictPolicy } from '../loop-options.js';
import { checkLimit } from './options.js';

/** K and the two switches as one attempt uses them. */
export interface ResolvedPolicy {
  readonly maxRetries: number;
  readonly interceptOutput: boolean;
  readonly retryWithDebug: boolean;
}

/**
 * Reads the policy for one attempt: the host's reader when there is one, each field it leaves out
 * taken from the fixed options. A malformed answer throws `invalid_argument`; the reader's own
 * errors pass through unchanged.
 */
export async function readPolicy(
  read: () => ConflictPolicy | Promise<ConflictPolicy>,
  fixed: ResolvedPolicy,
): Promise<ResolvedPolicy> {
  const policy: unknown = await read();
  if (typeof policy !== 'object' || policy === null) {
    throw new ConflictError('invalid_argument', 'The conflict policy must be an object', {
      details: { name: 'policy' },
    });
  }
  const { maxRetries, interceptOutput, retryWithDebug } = policy as ConflictPolicy;
  return {
    maxRetries: checkLimit(maxRetries, 'policy.maxRetries', fixed.maxRetries),
    interceptOutput: flag(interceptOutput, 'policy.interceptOutput', fixed.interceptOutput),
    retryWithDebug: flag(retryWithDebug, 'policy.retryWithDebug', fixed.retryWithDebug),
  };
}

function flag(value: unknown, name: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') {
    throw new ConflictError('invalid_argument', `${name} must be true or false`, { details: { name } });
  }
  return value;
}
