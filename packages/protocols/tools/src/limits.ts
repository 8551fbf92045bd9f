import { ToolsError } from './errors.js';

/**
 * The caps of a tool gate: what one batch and one call may hold, and how much the gate remembers.
 * Past a cap the gate refuses (it never drops what it remembers to make room).
 *
 * @example
 * ```ts
 * import type { ToolGateLimits } from '@parley/tools';
 *
 * const small: Partial<ToolGateLimits> = { maxBatchCalls: 16, maxRememberedCalls: 1_000 };
 * ```
 */
export interface ToolGateLimits {
  /** Calls in one batch; a longer batch is refused whole (`too_many_calls`), nothing in it runs. */
  readonly maxBatchCalls: number;
  /** Characters of a call id; a longer one is `invalid_call`. */
  readonly maxCallIdLength: number;
  /** UTF-8 bytes of a call's canonical content, `canonicalJson({ tool, args })`; larger is `invalid_call`. */
  readonly maxCallBytes: number;
  /** Calls remembered over the kept turns; past it, calls that would run are refused `memory_full`. */
  readonly maxRememberedCalls: number;
  /**
   * UTF-8 bytes remembered over the kept turns (ids, canonical contents and results as JSON); past
   * it, calls that would run are refused `memory_full`.
   */
  readonly maxRememberedBytes: number;
}

/**
 * The default caps of a tool gate: 256 calls per batch, ids of 256 characters, 64 KiB per call (tool
 * name and arguments), 10 000 remembered calls and 16 MiB remembered.
 *
 * @example
 * ```ts
 * import { DEFAULT_TOOL_GATE_LIMITS } from '@parley/tools';
 *
 * console.log(DEFAULT_TOOL_GATE_LIMITS.maxBatchCalls); // 256
 * ```
 */
export const DEFAULT_TOOL_GATE_LIMITS: ToolGateLimits = Object.freeze({
  maxBatchCalls: 256,
  maxCallIdLength: 256,
  maxCallBytes: 65_536,
  maxRememberedCalls: 10_000,
  maxRememberedBytes: 16 * 1024 * 1024,
});

/** The defaults with the given caps over them, each checked. @internal */
export function checkLimits(limits: Partial<ToolGateLimits> | undefined): ToolGateLimits {
  if (limits !== undefined && (typeof limits !== 'object' || limits === null)) {
    throw new ToolsError('invalid_argument', 'limits must be an object');
  }
  const merged = { ...DEFAULT_TOOL_GATE_LIMITS, ...limits };
  for (const key of Object.keys(DEFAULT_TOOL_GATE_LIMITS) as (keyof ToolGateLimits)[]) {
    const value = merged[key];
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new ToolsError('invalid_argument', `limits.${key} must be an integer ≥ 1, got ${String(value)}`, {
        details: { limit: key },
      });
    }
  }
  return merged;
}
