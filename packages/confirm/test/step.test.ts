import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { DEFAULT_VOCABULARY } from '../src/index.js';
import { type StepEvent, type StepView, step } from '../src/internal/step.js';

// The pure rule function every deciding path goes through (internal): table-driven, plus a
// property over random confirmations and events.

const RULES = {
  vocabulary: DEFAULT_VOCABULARY,
  unrecognised: 'cancel',
  maxReprompts: 2,
  standingMs: undefined,
  paging: false,
} as const;
const VIEW: StepView = {
  requester: 'alice',
  approvers: 'requester',
  steps: undefined,
  step: 0,
  reprompts: 0,
  firstPromptedAt: 1_000,
  promptedAt: 1_000,
  deliveredAt: 1_200,
  expiresAt: 61_000,
  orphaned: false,
};
const reply = (text: string, createdAt: number, senderId = 'alice'): StepEvent => ({
  type: 'reply',
  text,
  senderId,
  createdAt,
  bot: false,
});
const click = (createdAt: number): StepEvent => ({
  type: 'card',
  choice: 'confirm',
  senderId: 'alice',
  sessionKey: 's',
  promptSession: 's',
  createdAt,
  bot: false,
});

describe('step', () => {
  it.each([
    [
      'a confirm word after delivery',
      VIEW,
      reply('确认', 1_200),
      2_000,
      { kind: 'settle', outcome: 'confirmed' },
    ],
    [
      'a confirm word past the deadline',
      VIEW,
      reply('确认', 1_200),
      61_000,
      { kind: 'expire', consumed: true },
    ],
    [
      'chat by someone else past the deadline',
      VIEW,
      reply('hi', 1_200, 'bob'),
      61_000,
      { kind: 'expire', consumed: false },
    ],
    ['a click past the deadline', VIEW, click(1_300), 61_000, { kind: 'expire', consumed: true }],
    [
      'a reply written before the first prompt',
      VIEW,
      reply('确认', 999),
      2_000,
      { kind: 'pass', code: 'stale_reply' },
    ],
    [
      'a reply written before delivery',
      VIEW,
      reply('确认', 1_100),
      2_000,
      { kind: 'ignore', code: 'before_delivery' },
    ],
    [
      'a reply while in flight',
      { ...VIEW, deliveredAt: undefined },
      reply('确认', 1_500),
      2_000,
      { kind: 'ignore', code: 'before_delivery' },
    ],
    [
      'a click that reached the bot before the send resolved (it is on the delivered card)',
      VIEW,
      click(1_100),
      2_000,
      { kind: 'settle', outcome: 'confirmed', reason: 'card' },
    ],
    [
      'a click stamped before the send began',
      VIEW,
      click(999),
      2_000,
      { kind: 'refuse', code: 'before_delivery' },
    ],
    [
      'a click while the send is unresolved',
      { ...VIEW, deliveredAt: undefined },
      click(1_100),
      2_000,
      { kind: 'refuse', code: 'before_delivery' },
    ],
    [
      'a reply by someone who may not answer',
      VIEW,
      reply('确认', 1_500, 'bob'),
      2_000,
      { kind: 'pass', code: 'not_allowed' },
    ],
    ['the deadline event before the deadline', VIEW, { type: 'deadline' } as const, 60_999, { kind: 'pass' }],
    [
      'the deadline event at the deadline',
      VIEW,
      { type: 'deadline' } as const,
      61_000,
      { kind: 'expire', consumed: true },
    ],
    [
      'any event on a queued confirmation',
      { ...VIEW, expiresAt: undefined },
      reply('确认', 1_500),
      2_000,
      { kind: 'pass' },
    ],
  ] as const)('decides %s', (_, view, event, now, expected) => {
    expect(step(view, event, now, RULES)).toMatchObject(expected);
  });

  const views = fc.record({
    firstPromptedAt: fc.integer({ min: 0, max: 10_000 }),
    flight: fc.option(fc.integer({ min: 0, max: 5_000 }), { nil: undefined }),
    timeoutMs: fc.integer({ min: 1, max: 60_000 }),
  });
  test.prop([views, fc.integer({ min: 0, max: 80_000 }), fc.integer({ min: 0, max: 80_000 }), fc.boolean()])(
    'never confirms a reply written before delivery, a click before its send began or while unresolved, nor anything at or after the deadline',
    (v, createdAt, now, isCard) => {
      const view: StepView = {
        ...VIEW,
        firstPromptedAt: v.firstPromptedAt,
        promptedAt: v.firstPromptedAt,
        deliveredAt: v.flight === undefined ? undefined : v.firstPromptedAt + v.flight,
        expiresAt: v.firstPromptedAt + v.timeoutMs,
      };
      const result = step(
        view,
        isCard ? click(createdAt) : reply('确认', createdAt),
        Math.max(now, createdAt),
        RULES,
      );
      if (result.kind === 'settle' && result.outcome === 'confirmed') {
        expect(view.deliveredAt).toBeDefined();
        // A click is on the shown card: it may reach the bot before the send's answer.
        expect(createdAt).toBeGreaterThanOrEqual(isCard ? view.promptedAt : (view.deliveredAt as number));
        expect(Math.max(now, createdAt)).toBeLessThan(view.expiresAt as number);
      }
    },
  );
});
