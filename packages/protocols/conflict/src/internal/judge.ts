import { ConflictError } from '../errors.js';
import type { Detector } from '../detector.js';
import type { ToolGateLike } from '../gate.js';
import type { Conflict } from '../types.js';
import { checkGateResult, checkProposal } from './checks.js';
import { capConflicts, detectWith, reusedId } from './detection.js';
import type { Ledger } from './effects.js';
import { type JudgeContext, type Judgement, withAbort } from './engine.js';

/** What one run of a conflict loop judges its outputs with. */
export interface JudgeSetup<TState> {
  readonly ledger: Ledger;
  readonly readState: () => TState | Promise<TState>;
  readonly detectors: readonly Detector<TState>[];
  readonly gate: ToolGateLike<TState> | undefined;
  readonly maxCallsPerAttempt: number;
}

/**
 * Judges one output of the model: its shape, then the detectors on the state read now (when
 * intercepting), then the tool gate on the calls not run before; retry with the conflicts or the
 * failed calls, or accept with what ran.
 */
export async function judgeOutput<TState>(
  setup: JudgeSetup<TState>,
  output: unknown,
  { attempt, signal, applied }: JudgeContext<unknown>,
  intercept: boolean,
): Promise<Judgement> {
  const { ledger, readState, detectors, gate } = setup;
  const shape = checkProposal(output, setup.maxCallsPerAttempt);
  if (!shape.ok) return { kind: 'retry', status: 'conflict', conflicts: [shape.conflict] };
  const proposal = shape.value;
  const calls = proposal.tool_calls ?? [];
  const sorted = ledger.sort(calls, shape.keys);
  // A host callback that hangs must not outlive an abort: state reads and detectors are
  // abandoned when the signal fires (the gate is not, since what it ran must be known).
  const state = await withAbort(Promise.resolve().then(readState), signal);
  const found: Conflict[] = [];
  if (intercept && detectors.length > 0) {
    const context = { attempt, applied: [...applied], effects: sorted.effects };
    for (const detector of detectors) {
      for (const conflict of await withAbort(detectWith(detector, proposal, state, context), signal)) {
        found.push({ detector: detector.name, ...conflict });
      }
    }
  }
  const conflicts = capConflicts(found);
  const { recognised } = sorted;
  const skippedCallIds = recognised.map((call) => call.id);
  if (conflicts.length > 0 || sorted.reused.length > 0) {
    return {
      kind: 'retry',
      status: conflicts.length > 0 ? 'conflict' : 'tool_rejected',
      conflicts,
      ...(sorted.reused.length === 0 ? {} : { toolFeedback: { failed_calls: sorted.reused.map(reusedId) } }),
      recognised,
      skippedCallIds,
      alreadyApplied: ledger.applied(),
    };
  }
  const fresh = sorted.fresh;
  if (gate === undefined || fresh.length === 0) {
    return { kind: 'accept', status: 'passed', recognised, skippedCallIds, alreadyApplied: ledger.applied() };
  }
  let result: unknown;
  try {
    result = await gate(fresh, { state, attempt, proposal, applied: [...applied], signal });
  } catch (error) {
    throw new ConflictError('gate_failed', 'The tool gate threw', {
      cause: error,
      details: { callIds: fresh.map((call) => call.id) },
    });
  }
  const checked = checkGateResult(result, fresh);
  const keys = new Map(calls.map((call, index) => [call.id, shape.keys[index]!]));
  const failedIds = checked.failed.map((call) => call.id);
  ledger.record(fresh, keys, checked.executed, checked.deferred, failedIds, attempt);
  const done = {
    recognised,
    skippedCallIds,
    alreadyApplied: ledger.applied(),
    executed: checked.executed,
    deferred: checked.deferred,
  };
  if (checked.failed.length === 0) return { kind: 'accept', status: 'passed', ...done };
  return {
    kind: 'retry',
    status: 'tool_rejected',
    toolFeedback: { failed_calls: checked.failed },
    ...done,
  };
}
