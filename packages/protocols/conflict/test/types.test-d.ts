import { describe, expectTypeOf, it } from 'vitest';
import {
  type AlreadyApplied,
  type AttemptRecord,
  type ConflictErrorCode,
  type RecognisedCall,
  type RetryFeedback,
  type ConflictOutcome,
  type ConflictReportReason,
  createConflictLoop,
  createReviewGate,
  type Detector,
  defineDetector,
  defineFieldClaimDetector,
  type DetectContext,
  type AppliedAction,
  type FailedCall,
  type Proposal,
  type ToolGateLike,
} from '../src/index.js';

interface Campaign {
  readonly hp: number;
}

describe('types', () => {
  it('infers the state type of a detector and checks it in the loop', () => {
    const detector = defineDetector<Campaign>({
      name: 'x',
      detect: (_p, state) => state.hp < 0 && undefined,
    });
    expectTypeOf(detector).toEqualTypeOf<Detector<Campaign>>();
    createConflictLoop<Campaign>({
      detectors: [detector, defineFieldClaimDetector<Campaign>({ fields: () => [] })],
    });
    const other = defineDetector<{ at: string }>({ name: 'y', detect: () => undefined });
    // @ts-expect-error a detector of another state type does not fit
    createConflictLoop<Campaign>({ detectors: [other] });
  });

  it('gives detect the effects of the turn, always present', () => {
    defineDetector({
      name: 'z',
      detect: (_p, _s, context) => {
        expectTypeOf(context.effects).toEqualTypeOf<readonly AppliedAction[]>();
        expectTypeOf(context).toMatchTypeOf<DetectContext>();
        return undefined;
      },
    });
  });

  it('types the run outcome by input and the output as a proposal', async () => {
    const loop = createConflictLoop<Campaign>();
    const outcome = await loop.run({
      input: { prompt: 'x' },
      generate: async (request) => {
        expectTypeOf(request.input).toEqualTypeOf<{ prompt: string }>();
        return { text: 'a' };
      },
      readState: () => ({ hp: 1 }),
    });
    expectTypeOf(outcome).toEqualTypeOf<ConflictOutcome<Proposal, { prompt: string }>>();
    if (outcome.ok) expectTypeOf(outcome.output).toEqualTypeOf<Proposal>();
    else expectTypeOf(outcome.code).toEqualTypeOf<ConflictReportReason>();
    // @ts-expect-error readState must return the loop's state type
    await loop.run({ input: 1, generate: () => ({ text: '' }), readState: () => ({ hp: 'x' }) });
    // @ts-expect-error a proposal needs text
    await loop.run({ input: 1, generate: () => ({ tool_calls: [] }), readState: () => ({ hp: 1 }) });
  });

  it('types review gate outputs and verdicts', async () => {
    const gate = createReviewGate<{ version: number }>({
      review: (output) => ({ verdict: output.version > 1 ? 'pass' : 'block' }),
    });
    const outcome = await gate.run({ input: 'b', generate: () => ({ version: 1 }) });
    if (outcome.ok) expectTypeOf(outcome.output).toEqualTypeOf<{ version: number }>();
    // @ts-expect-error verdicts are pass, revise or block
    createReviewGate<number>({ review: () => ({ verdict: 'maybe' }) });
    // @ts-expect-error the generator must produce the reviewed type
    await gate.run({ input: 'b', generate: () => 'text' });
  });

  it('shapes the gate like the document: failed_calls with status rejected or error', () => {
    const gate: ToolGateLike<Campaign> = (calls) => ({
      executed: [],
      feedback: {
        failed_calls: calls.map((call) => ({
          id: call.id,
          tool: call.tool,
          status: 'rejected',
          reason: 'no',
        })),
      },
    });
    expectTypeOf(gate).parameter(1).toHaveProperty('state').toEqualTypeOf<Campaign>();
    // @ts-expect-error status is 'rejected' | 'error'
    const _bad: FailedCall = { id: 'c', tool: 't', status: 'denied', reason: 'x' };
    expectTypeOf<ConflictErrorCode>().toEqualTypeOf<
      'invalid_argument' | 'cancelled' | 'detector_failed' | 'gate_failed' | 'store_failed' | 'unchecked_tool'
    >();
  });

  it('types what the loop says about effects that already ran', () => {
    expectTypeOf<RetryFeedback['already_applied']>().toEqualTypeOf<readonly AlreadyApplied[] | undefined>();
    expectTypeOf<AttemptRecord<unknown>['recognised']>().toEqualTypeOf<readonly RecognisedCall[]>();
    expectTypeOf<RecognisedCall['status']>().toEqualTypeOf<'applied' | 'deferred'>();
  });
});
