import { copyWith, createEmitter, systemClock } from '@parley/core';
import { ConflictError } from './errors.js';
import { checkDetectors } from './internal/detection.js';
import { createLedger } from './internal/effects.js';
import { type Judgement, runLoop, withAbort } from './internal/engine.js';
import { judgeOutput } from './internal/judge.js';
import { checkFunction, checkLimit } from './internal/options.js';
import { readPolicy } from './internal/policy.js';
import {
  type ConflictLoop,
  type ConflictLoopOptions,
  DEFAULT_MAX_CALLS_PER_ATTEMPT,
  DEFAULT_MAX_ERROR_RETRIES,
  DEFAULT_MAX_RETRIES,
} from './loop-options.js';
import type { ConflictLoopEvents } from './report.js';
import { requireToolCoverage } from './tool-coverage.js';

/**
 * Creates the check-and-retry loop of the reference document: the model's output is intercepted,
 * checked by every detector against the authoritative state and, when clean, its tool calls are
 * judged by the gate. A conflict or a refused call appends `conflict_debug` / `tool_feedback` to
 * the previous request and asks again, at most K times; then the run ends with a `conflict_report`
 * for a person.
 *
 * Use one loop per kind of turn (its detectors and gate are fixed) and call `run` per turn. Tool
 * calls of an attempt a detector rejects are never executed. Effects are carried forward: what the
 * gate executed stays applied, every retry's feedback lists it in `already_applied`, and a later
 * call equal to it (same tool, same canonical arguments, matched one to one) is recognised and not
 * run again, whatever its id. A call id reused for other content is refused (`call_id_reused`)
 * and nothing of that attempt runs. A malformed output (no text, a call without id/tool/args,
 * a repeated id, args that are not JSON, more than `maxCallsPerAttempt` calls) is a conflict of
 * the built-in `proposal_shape` detector. A generator that throws
 * is retried once with the same request (`maxErrorRetries`), then reported as `generator_failed`.
 * K and the document's `intercept_output` / `retry_with_debug` switches are fixed options or read
 * per attempt from `policy` (a campaign's settings).
 *
 * @throws ConflictError `invalid_argument` for a limit outside 0–100, a detector not made by
 * `defineDetector`, two detectors with one name, or a gate or policy that is not a function;
 * `unchecked_tool` when a tool of `stateTools` has no detector checking it.
 * @example
 * ```ts
 * import { createManualClock } from '@parley/core';
 * import { createConflictLoop, defineDetector, findClaims, type Proposal } from '@parley/conflict';
 *
 * // Stock changes only through the ship tool: "we ship 5 crates" needs a ship call for 5.
 * const shipments = defineDetector({
 *   name: 'shipment_claim',
 *   tools: ['ship'],
 *   detect: (proposal, _state, { effects }) =>
 *     findClaims(proposal.text, [{ pattern: /\bship (?<count>\d+) crates\b/i }])
 *       .filter((claim) => !effects.some((call) => call.args?.['count'] === Number(claim.groups['count'])))
 *       .map((claim) => ({
 *         expected_state_snippet: { stock_changes_only_via: 'ship' },
 *         mismatch_reason: `The text claims a shipment ("${claim.text}") that no ship call makes`,
 *         instructions: 'Request a ship call for every shipment you describe.',
 *       })),
 * });
 * const state = { crates: 20 };
 * const loop = createConflictLoop<typeof state>({
 *   detectors: [shipments],
 *   gate: async (calls) => {
 *     for (const call of calls) state.crates -= Number(call.args['count']);
 *     return { executed: calls.map((call) => ({ id: call.id, tool: call.tool })) };
 *   },
 *   clock: createManualClock(),
 * });
 *
 * const answers: Proposal[] = [
 *   { text: 'Done: we ship 5 crates to Oslo.' },
 *   {
 *     text: 'Done: we ship 5 crates to Oslo.',
 *     tool_calls: [{ id: 'call_1', tool: 'ship', args: { count: 5, to: 'Oslo' } }],
 *   },
 * ];
 * const outcome = await loop.run({
 *   input: 'Send Oslo its order',
 *   generate: async (request) => answers[request.feedback.length]!,
 *   readState: () => state,
 * });
 * console.log(outcome.ok, outcome.retries, state.crates); // true 1 15
 * ```
 */
export function createConflictLoop<TState = unknown>(
  options: ConflictLoopOptions<TState> = {},
): ConflictLoop<TState> {
  const maxRetries = checkLimit(options.maxRetries, 'maxRetries', DEFAULT_MAX_RETRIES);
  const maxErrorRetries = checkLimit(options.maxErrorRetries, 'maxErrorRetries', DEFAULT_MAX_ERROR_RETRIES);
  const maxCallsPerAttempt = checkLimit(
    options.maxCallsPerAttempt,
    'maxCallsPerAttempt',
    DEFAULT_MAX_CALLS_PER_ATTEMPT,
    1_000,
  );
  const detectors = checkDetectors(options.detectors ?? []);
  requireToolCoverage(options.stateTools, detectors);
  const fixed = {
    maxRetries,
    interceptOutput: checkSwitch(options.interceptOutput, 'interceptOutput'),
    retryWithDebug: checkSwitch(options.retryWithDebug, 'retryWithDebug'),
  };
  if (options.policy !== undefined) checkFunction(options.policy, 'policy');
  const gate = options.gate;
  if (gate !== undefined) checkFunction(gate, 'gate');
  const clock = options.clock ?? systemClock;
  const events = createEmitter<ConflictLoopEvents>();

  return {
    async run(run) {
      checkFunction(run?.generate, 'generate');
      checkFunction(run.readState, 'readState');
      const { readState } = run;
      const setup = { ledger: createLedger(), readState, detectors, gate, maxCallsPerAttempt };
      const policyOf = options.policy;
      return runLoop(
        {
          maxRetries,
          maxErrorRetries,
          limitReason: 'max_retries',
          clock,
          events,
          async judge(output, context): Promise<Judgement> {
            // The moment of deciding: K and the switches are read for this attempt, not at construction.
            const policy =
              policyOf === undefined ? fixed : await withAbort(readPolicy(policyOf, fixed), context.signal);
            const judged = await judgeOutput(setup, output, context, policy.interceptOutput);
            const decided: Judgement = copyWith(judged, { maxRetries: policy.maxRetries });
            if (decided.kind !== 'retry' || (decided.conflicts ?? []).length === 0 || policy.retryWithDebug) {
              return decided;
            }
            return { ...decided, kind: 'escalate', reason: 'retry_disabled' };
          },
        },
        run.input,
        run.generate,
        run.signal,
      );
    },
    on: (event, listener) => events.on(event, listener),
  };
}

function checkSwitch(value: unknown, name: string): boolean {
  if (value === undefined) return true;
  if (typeof value !== 'boolean') {
    throw new ConflictError('invalid_argument', `${name} must be true or false`, { details: { name } });
  }
  return value;
}
