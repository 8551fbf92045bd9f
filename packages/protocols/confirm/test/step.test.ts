import { fc, test } from '@fast-check/vitest';
import type { PlatformOrder } from '@parley/bus';
import { describe, expect, it } from 'vitest';
import { DEFAULT_VOCABULARY } from '../src/index.js';
import type { ConfirmationAnswer } from '../src/internal/confirmation.js';
import { type StepView, step } from '../src/internal/step.js';
import { afterDecision } from '../src/internal/step-decided.js';

// The pure rule function every deciding path goes through (internal): table-driven, plus a
// property over random confirmations and events. Arrival numbers: the prompt's send began at 10
// and was known delivered at 20; the platform placed the prompt at position 100.

const RULES = {
  vocabulary: DEFAULT_VOCABULARY,
  unrecognised: 'cancel',
  maxReprompts: 2,
  standingMs: undefined,
  paging: false,
} as const;
const at = (position: number): PlatformOrder => ({ scope: 'g1', position: [position] });
const VIEW: StepView = {
  requester: 'alice',
  approvers: 'requester',
  steps: undefined,
  step: 0,
  reprompts: 0,
  sentSeq: 10,
  deliveredSeq: 20,
  order: at(100),
  prompted: true,
  expired: false,
  orphaned: false,
};
const IN_FLIGHT: StepView = { ...VIEW, deliveredSeq: undefined, order: undefined };
const reply = (
  text: string,
  arrival: number,
  order?: PlatformOrder,
  senderId = 'alice',
): ConfirmationAnswer => ({
  type: 'reply',
  text,
  senderId,
  arrival,
  order,
  bot: false,
});
const click = (arrival: number): ConfirmationAnswer => ({
  type: 'card',
  choice: 'confirm',
  senderId: 'alice',
  sessionKey: 's',
  promptSession: 's',
  arrival,
  bot: false,
});

describe('step', () => {
  it.each([
    ['a confirm word after delivery', VIEW, reply('确认', 21), { kind: 'settle', outcome: 'confirmed' }],
    [
      'a confirm word past the deadline',
      { ...VIEW, expired: true },
      reply('确认', 21),
      { kind: 'expire', consumed: true },
    ],
    [
      'chat by someone else past the deadline',
      { ...VIEW, expired: true },
      reply('hi', 21, undefined, 'bob'),
      { kind: 'expire', consumed: false },
    ],
    ['a click past the deadline', { ...VIEW, expired: true }, click(21), { kind: 'expire', consumed: true }],
    [
      'a reply that arrived before the send began (offered to the one decided before first)',
      VIEW,
      reply('确认', 9),
      { kind: 'before_send' },
    ],
    [
      'a reply that arrived before the send began, which the one decided before did not take',
      VIEW,
      { ...reply('确认', 9), lateChecked: true },
      { kind: 'ignore', code: 'before_delivery', tooEarly: true },
    ],
    [
      'a reply before the prompt was sent at all',
      { ...IN_FLIGHT, sentSeq: undefined },
      { ...reply('确认', 30), lateChecked: true },
      { kind: 'ignore', code: 'before_delivery', tooEarly: true },
    ],
    ['an unordered reply while in flight', IN_FLIGHT, reply('确认', 11), { kind: 'ignore', tooEarly: true }],
    ['an ordered reply while in flight', IN_FLIGHT, reply('确认', 11, at(101)), { kind: 'hold' }],
    [
      'an ordered reply while in flight when no more are held',
      IN_FLIGHT,
      { ...reply('确认', 11, at(101)), full: true },
      { kind: 'ignore', code: 'before_delivery', tooEarly: true },
    ],
    [
      'an in-flight reply the receipt places after the prompt',
      VIEW,
      reply('确认', 11, at(101)),
      { kind: 'settle', outcome: 'confirmed' },
    ],
    [
      'an in-flight reply level with the prompt',
      VIEW,
      reply('确认', 11, at(100)),
      { kind: 'ignore', code: 'before_delivery' },
    ],
    [
      'an in-flight reply whose order cannot be compared',
      VIEW,
      reply('确认', 11, { scope: 'other', position: [1] }),
      { kind: 'ignore', code: 'before_delivery', tooEarly: true },
    ],
    [
      'a reply after delivery the platform placed before the prompt',
      VIEW,
      reply('确认', 21, at(99)),
      { kind: 'ignore', code: 'stale_reply' },
    ],
    [
      'a click that reached the bot before the send resolved (it is on the delivered card)',
      VIEW,
      click(11),
      { kind: 'settle', outcome: 'confirmed', reason: 'card' },
    ],
    [
      'a click that arrived before the send began',
      VIEW,
      click(9),
      { kind: 'refuse', code: 'before_delivery' },
    ],
    [
      'a click while the send is unresolved',
      IN_FLIGHT,
      click(11),
      { kind: 'refuse', code: 'before_delivery' },
    ],
    [
      'a reply by someone who may not answer',
      VIEW,
      reply('确认', 21, undefined, 'bob'),
      { kind: 'pass', code: 'not_allowed' },
    ],
    ['the deadline event before the deadline', VIEW, { type: 'deadline' } as const, { kind: 'pass' }],
    [
      'the deadline event at the deadline',
      { ...VIEW, expired: true },
      { type: 'deadline' } as const,
      { kind: 'expire', consumed: true },
    ],
    ['any event on a queued confirmation', { ...VIEW, prompted: false }, reply('确认', 21), { kind: 'pass' }],
  ] as const)('decides %s', (_, view, event, expected) => {
    expect(step(view, event, 2_000, RULES)).toMatchObject(expected);
  });

  it('absorbs an approver’s answer after the decision until the window ends, and passes other chat', () => {
    const lately = {
      id: 'c1',
      requester: 'alice',
      approvers: 'requester',
      steps: undefined,
      until: 5_000,
      outcome: 'confirmed',
    } as const;
    const message = (text: string, senderId = 'alice') => ({ text, senderId, bot: false });
    expect(afterDecision(lately, message('确认'), 4_999, RULES)).toBe('absorb');
    expect(afterDecision(lately, message('hello'), 4_999, RULES)).toBe('pass');
    expect(afterDecision(lately, message('确认', 'bob'), 4_999, RULES)).toBe('pass');
    expect(afterDecision(lately, message('确认'), 5_000, RULES)).toBe('forget');
  });

  const views = fc.record({
    sentSeq: fc.option(fc.integer({ min: 1, max: 50 }), { nil: undefined }),
    flight: fc.option(fc.integer({ min: 1, max: 50 }), { nil: undefined }),
    order: fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined }),
    expired: fc.boolean(),
  });
  test.prop([
    views,
    fc.integer({ min: 0, max: 120 }),
    fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined }),
    fc.boolean(),
  ])(
    'never confirms an answer that arrived before the send began, an in-flight reply the platform does not place after the prompt, nor anything past the deadline',
    (v, arrival, replyOrder, isCard) => {
      const view: StepView = {
        ...VIEW,
        sentSeq: v.sentSeq,
        deliveredSeq: v.sentSeq === undefined || v.flight === undefined ? undefined : v.sentSeq + v.flight,
        order: v.order === undefined ? undefined : at(v.order),
        expired: v.expired,
      };
      const order = replyOrder === undefined ? undefined : at(replyOrder);
      const result = step(view, isCard ? click(arrival) : reply('确认', arrival, order), 2_000, RULES);
      if (result.kind === 'settle' && result.outcome === 'confirmed') {
        expect(view.expired).toBe(false);
        expect(view.deliveredSeq).toBeDefined();
        expect(arrival).toBeGreaterThanOrEqual(view.sentSeq as number);
        if (!isCard && arrival < (view.deliveredSeq as number))
          expect(replyOrder).toBeGreaterThan(v.order as number);
        if (!isCard && replyOrder !== undefined && v.order !== undefined)
          expect(replyOrder).toBeGreaterThan(v.order);
      }
    },
  );
});
