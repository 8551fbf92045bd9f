import type { Detector } from './detector.js';
import { ConflictError } from './errors.js';

/**
 * What {@link checkToolCoverage} answers: every state-changing tool has a conflict check, or the
 * refusal naming the tools that have none.
 *
 * @example
 * ```ts
 * import type { ToolCoverage } from '@parley/conflict';
 *
 * const refused: ToolCoverage = { ok: false, code: 'unchecked_tool', tools: ['teleport'] };
 * ```
 */
export type ToolCoverage =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly code: 'unchecked_tool';
      /** The state-changing tools no detector checks, in the order given. */
      readonly tools: readonly string[];
    };

/**
 * Checks the reference document's rule that every tool comes with a conflict check: each tool
 * that changes authoritative state must be named in the `tools` of one of the detectors. Pass the
 * names of the state-changing tools a gate registers (for `@parley/tools`, the names of those
 * definitions); read-only tools need no check. A gap is refused as data; `createConflictLoop`
 * throws `unchecked_tool` for the same gap in its `stateTools`.
 *
 * @throws ConflictError `invalid_argument` when `stateTools` is not a list of non-empty names or a
 * detector was not made by `defineDetector`.
 * @example
 * ```ts
 * import { checkToolCoverage, defineDetector } from '@parley/conflict';
 *
 * const shipments = defineDetector({ name: 'shipment_claim', tools: ['ship'], detect: () => undefined });
 * const refunds = defineDetector({ name: 'refund_claim', tools: ['refund'], detect: () => undefined });
 * const detectors = [shipments, refunds];
 * console.log(checkToolCoverage(['ship', 'refund'], detectors)); // { ok: true }
 * console.log(checkToolCoverage(['ship', 'cancel_order'], detectors));
 * // { ok: false, code: 'unchecked_tool', tools: ['cancel_order'] }
 * ```
 */
export function checkToolCoverage<TState>(
  stateTools: readonly string[],
  detectors: readonly Detector<TState>[],
): ToolCoverage {
  if (!Array.isArray(stateTools) || stateTools.some((tool) => typeof tool !== 'string' || tool === '')) {
    throw new ConflictError('invalid_argument', 'stateTools must be a list of tool names');
  }
  if (!Array.isArray(detectors) || detectors.some((detector) => !Array.isArray(detector?.tools))) {
    throw new ConflictError('invalid_argument', 'Every detector must be made with defineDetector');
  }
  const checked = new Set(detectors.flatMap((detector) => detector.tools));
  const missing = [...new Set(stateTools)].filter((tool) => !checked.has(tool));
  return missing.length === 0 ? { ok: true } : { ok: false, code: 'unchecked_tool', tools: missing };
}

/** The loop's registration check: throws `unchecked_tool` for a state-changing tool without a check. */
export function requireToolCoverage<TState>(
  stateTools: readonly string[] | undefined,
  detectors: readonly Detector<TState>[],
): void {
  if (stateTools === undefined) return;
  const coverage = checkToolCoverage(stateTools, detectors);
  if (coverage.ok) return;
  throw new ConflictError(
    'unchecked_tool',
    `No detector checks the state-changing tool${coverage.tools.length === 1 ? '' : 's'} ${coverage.tools.map((tool) => `"${tool}"`).join(', ')}: give each a conflict check (defineDetector({ tools }))`,
    { details: { tools: [...coverage.tools] } },
  );
}
