import { DEFAULT_FAILURE_POLICIES, type FailureKind, type TaskNode } from './types.js';

/**
 * The failure rule of a task or review node, pure: after one more failure of `kind`, given the
 * failures its record counted before it, the node tries again while the count stays within the
 * policy's `retries` (`node.onFailure`, else {@link DEFAULT_FAILURE_POLICIES}), then does what the
 * policy says after (`skip`, `escalate` or `abort`). The runner uses it for every failed attempt;
 * use it to host pipelines on another engine with the same rule.
 *
 * @example
 * ```ts
 * import { afterFailure } from '@parley/pipeline';
 *
 * console.log(afterFailure({}, {}, 'error')); // retry
 * console.log(afterFailure({}, { error: 1 }, 'error')); // abort
 * console.log(afterFailure({ onFailure: { timeout: { retries: 0, after: 'skip' } } }, {}, 'timeout')); // skip
 * ```
 */
export function afterFailure(
  node: Pick<TaskNode, 'onFailure'>,
  failures: Readonly<Partial<Record<FailureKind, number>>>,
  kind: FailureKind,
): 'retry' | 'skip' | 'escalate' | 'abort' {
  const count = (failures[kind] ?? 0) + 1;
  const policy = node.onFailure?.[kind] ?? DEFAULT_FAILURE_POLICIES[kind];
  return count <= policy.retries ? 'retry' : policy.after;
}
