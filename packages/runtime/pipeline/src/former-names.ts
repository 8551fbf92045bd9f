// Former names, kept for one minor version so code that imports them keeps working: each is the
// same value or type as its new name, and goes in the next minor version.
import { toPipelineMermaid } from './mermaid.js';
import type { NodeFailurePolicy } from './types.js';

/**
 * The former name of {@link NodeFailurePolicy}: the same type.
 *
 * @deprecated Use `NodeFailurePolicy`; `FailurePolicy` was exported by another package for something else.
 * @example
 * ```ts
 * import type { NodeFailurePolicy, FailurePolicy } from '@parley/pipeline';
 *
 * const same = (value: FailurePolicy): NodeFailurePolicy => value;
 * ```
 */
export type FailurePolicy = NodeFailurePolicy;

/**
 * The former name of {@link toPipelineMermaid}: the same function.
 *
 * @deprecated Use `toPipelineMermaid`; `toMermaid` was exported by another package for something else.
 * @example
 * ```ts
 * import { toPipelineMermaid, toMermaid } from '@parley/pipeline';
 *
 * console.log(toMermaid === toPipelineMermaid); // true
 * ```
 */
export const toMermaid = toPipelineMermaid;
