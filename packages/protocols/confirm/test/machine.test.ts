import { fc, test } from '@fast-check/vitest';
import type { PlatformOrder } from '@parley/bus';
import { describe, expect, it } from 'vitest';
import { DEFAULT_VOCABULARY } from '../src/index.js';
import {
  type Confirmation,
  type ConfirmationEvent,
  type ConfirmRules,
  confirmationOf,
} from '../src/internal/confirmation.js';
import { confirmStep, timeless } from '../src/internal/machine.js';
import type { ConfirmationRecord } from '../src/internal/records.js';

// The confirm gate's one step (internal): every change of a confirmation's state and every
// effect the runner performs comes from `confirmStep`. A table of events on each state, and
// properties over random event sequences: the step never changes what it is given, a settled
// confirmation takes no event, and it ends at most once.

const RULES: ConfirmRules = {
  vocabulary: DEFAULT_VOCABULARY,
  unrecognised: 'reprompt',
  maxReprompts: 2,
  standingMs: undefined,
  paging: false,
  afterDecisionMs: 30_000,
  admit: { whenPending: 'queue', maxQueued: 8, maxPending: 100, standing: false },
};
const at = (position: number): PlatformOrder => ({ scope: 'g1', position: [position] });
const RECORD: ConfirmationRecord = {
  rev: 0,
  id: 'c1',
  sessionKey: 'telegram:1',
  action: { name: 'sql.drop', args: { table: 'customers' }, digest: 'a'.repeat(64) },
  summary: 'DROP TABLE customers',
  requester: 'alice',
  approvers: 'requester',
  steps: null,
  step: 0,
  reprompts: 0,
  timeoutMs: 60_000,
  requestedAt: 1_000,
  firstPromptedAt: 0,
  promptedAt: 0,
  expiresAt: 0,
};
const NEW = confirmationOf(RECORD, {
  restored: false,
  remote: false,
  resumable: false,
  state: 'new',
  deliveredSeq: null,
});

/** Runs events from a state, each at `now`, and returns the last transition and the state. */
function run(from: Confirmation, events: readonly ConfirmationEvent[], now = 2_000) {
  let c = from;
  let last = confirmStep(c, { type: 'timed' }, now, RULES);
  for (const event of events) {
    last = confirmStep(c, event, now, RULES);
    c = last.next;
  }
  return { c, last };
}

const reply = (text: string, arrival: number, order?: PlatformOrder): ConfirmationEvent => ({
  type: 'reply',
  text,
  senderId: 'alice',
  arrival,
  order,
  bot: false,
});
const PROMPTED: ConfirmationEvent[] = [{ type: 'prompt' }, { type: 'send_begun', sends: 1, seq: 10 }];
const DELIVERED: ConfirmationEvent[] = [
  ...PROMPTED,
  { type: 'delivered', sends: 1, seq: 20, kind: 'first', order: at(100) },
];

describe('confirmStep', () => {
  it('prompts: the window is timed, and the prompt goes out after its record is written', () => {
    const { c, last } = run(NEW, [{ type: 'prompt' }]);
    expect(c).toMatchObject({ state: 'prompted', sends: 1, sentSeq: null });
    expect(c.record).toMatchObject({ firstPromptedAt: 2_000, expiresAt: 62_000 });
    expect(last.effects).toEqual([
      { type: 'timer', delayMs: 60_000 },
      { type: 'write_then_send', kind: 'first', sends: 1 },
    ]);
  });

  it('starts the whole window again at delivery, writes it, announces it, then wakes held answers', () => {
    const { c, last } = run(NEW, DELIVERED, 5_000);
    expect(c.record).toMatchObject({ deliveredAt: 5_000, expiresAt: 65_000, order: at(100) });
    expect(c).toMatchObject({ deliveredSeq: 20, seen: true });
    expect(last.effects.map((effect) => effect.type)).toEqual(['timer', 'write', 'announce', 'wake']);
  });

  it('ignores the result of a send a newer prompt overtook', () => {
    const { c } = run(NEW, [...DELIVERED, reply('maybe', 21), { type: 'send_failed', sends: 1 }]);
    expect(c.state).toBe('prompted');
  });

  it.each([
    ['a reply that reached the gate before the send began', [...DELIVERED, reply('确认', 9)], 'prompted'],
    ['a reply after delivery', [...DELIVERED, reply('确认', 21)], 'done'],
    [
      'an in-flight reply the platform placed after the prompt',
      [...DELIVERED, reply('确认', 15, at(101))],
      'done',
    ],
    ['an in-flight reply level with the prompt', [...DELIVERED, reply('确认', 15, at(100))], 'prompted'],
    ['a refused send', [...PROMPTED, { type: 'send_failed', sends: 1 }], 'done'],
  ] as const)('decides %s', (_, events, state) => {
    expect(run(NEW, events).c.state).toBe(state);
  });

  it('re-prompts an unrecognised answer as a new prompt, not sent yet', () => {
    const { c, last } = run(NEW, [...DELIVERED, reply('maybe', 21)]);
    expect(c.record).toMatchObject({ reprompts: 1 });
    expect(c.record.deliveredAt).toBeUndefined();
    expect(c).toMatchObject({ sentSeq: null, deliveredSeq: null, sends: 2 });
    expect(last.effects).toEqual([{ type: 'write_then_send', kind: 'reprompt', sends: 2 }]);
  });

  it('tells the person once per prompt that an answer came too early', () => {
    const early = run(NEW, [...PROMPTED, reply('确认', 11)]);
    expect(early.last.effects).toEqual([{ type: 'notice', name: 'tooEarly' }]);
    const again = confirmStep(early.c, reply('确认', 12), 2_000, RULES);
    expect(again.effects).toEqual([]);
  });

  it('times out at the window: a timer of the owner decides, a follower waits its grace first', () => {
    const own = run(NEW, [...DELIVERED, { type: 'window_over' }]);
    expect(own.last.effects[0]).toMatchObject({
      type: 'decided',
      decision: { outcome: 'timed_out', reason: 'timeout' },
      notice: 'timedOut',
    });
    const followed = { ...run(NEW, DELIVERED).c, remote: true };
    const over = confirmStep(followed, { type: 'window_over' }, 70_000, RULES);
    expect(over.effects).toEqual([{ type: 'grace' }]);
    expect(confirmStep(over.next, { type: 'grace_over' }, 71_000, RULES).next.state).toBe('done');
  });

  it('takes a stored version only when it is newer than the one it holds', () => {
    const { c } = run(NEW, DELIVERED);
    const held = { ...c, record: { ...c.record, rev: 3 } };
    const older = { ...held.record, rev: 3, step: 0, reprompts: 1 };
    expect(confirmStep(held, { type: 'stored', record: older, seq: 30 }, 2_000, RULES).next).toBe(held);
    const newer = { ...held.record, rev: 4, reprompts: 1, promptedAt: 3_000 };
    const { deliveredAt: _, ...unsentNewer } = newer;
    const taken = confirmStep(held, { type: 'stored', record: unsentNewer, seq: 30 }, 3_000, RULES).next;
    expect(taken).toMatchObject({ sentSeq: 0, deliveredSeq: null });
    expect(taken.record).toMatchObject({ rev: 4, reprompts: 1 });
  });

  it("absorbs an approver's answer after the decision, tells the person once, and forgets it later", () => {
    const { c } = run(NEW, [...DELIVERED, reply('确认', 21)], 5_000);
    expect(c.after).toEqual({ until: 35_000, outcome: 'confirmed', told: false });
    const late = confirmStep(c, reply('确认', 22), 6_000, RULES);
    expect(late.result).toEqual({ kind: 'ignore', code: 'after_decision' });
    expect(late.effects).toEqual([{ type: 'late', outcome: 'confirmed' }]);
    expect(confirmStep(late.next, reply('确认', 23), 7_000, RULES).effects).toEqual([]);
    expect(confirmStep(late.next, reply('hello', 23), 7_000, RULES).result).toEqual({ kind: 'pass' });
    const gone = confirmStep(late.next, reply('确认', 24), 35_000, RULES);
    expect(gone).toMatchObject({ result: { kind: 'forget' }, effects: [{ type: 'forget' }] });
    expect(gone.next.after).toBeNull();
  });

  it('absorbs nothing after a decision whose prompt the person never saw', () => {
    const { c } = run(NEW, [...PROMPTED, { type: 'send_failed', sends: 1 }]);
    expect(c).toMatchObject({ state: 'done', after: null });
    expect(confirmStep(c, reply('确认', 30), 3_000, RULES).result).toEqual({ kind: 'pass' });
  });

  it('admits by the admission rule: queued behind a prompted one, refused past maxPending', () => {
    const view = {
      aborted: false,
      held: 0,
      closed: false,
      multiStep: false,
      grant: null,
      active: true,
      queued: 0,
    };
    expect(confirmStep(NEW, { type: 'admit', view }, 2_000, RULES).next.state).toBe('queued');
    const full = confirmStep(
      NEW,
      { type: 'admit', view: { ...view, grant: 'unread', held: 100 } },
      2_000,
      RULES,
    );
    expect(full.effects[0]).toMatchObject({
      type: 'decided',
      record: false,
      decision: { reason: 'too_many_pending' },
    });
  });
});

const event: fc.Arbitrary<ConfirmationEvent> = fc.oneof(
  fc.constant<ConfirmationEvent>({ type: 'prompt' }),
  fc.record({ type: fc.constant('send_begun' as const), sends: fc.nat(3), seq: fc.nat(40) }),
  fc.record({
    type: fc.constant('delivered' as const),
    sends: fc.nat(3),
    seq: fc.nat(40),
    kind: fc.constantFrom('first' as const, 'step' as const, 'reprompt' as const),
    order: fc.option(fc.nat(200).map(at), { nil: undefined }),
  }),
  fc.record({ type: fc.constant('send_failed' as const), sends: fc.nat(3) }),
  fc.record({ type: fc.constant('written' as const), rev: fc.nat(5) }),
  fc.constantFrom<ConfirmationEvent>({ type: 'window_over' }, { type: 'grace_over' }, { type: 'timed' }),
  fc
    .tuple(
      fc.constantFrom('确认', '取消', 'maybe', 'more'),
      fc.nat(40),
      fc.option(fc.nat(200).map(at), { nil: undefined }),
    )
    .map(([text, arrival, order]) => reply(text, arrival, order)),
  fc.constant<ConfirmationEvent>({ type: 'settle', outcome: 'aborted', reason: 'signal' }),
  fc.constant<ConfirmationEvent>({ type: 'drop' }),
);

describe('confirmStep over random event sequences', () => {
  test.prop([fc.array(event, { maxLength: 25 }), fc.nat(100_000)])(
    'never changes what it is given, ends at most once and takes no event after',
    (events, start) => {
      let c = NEW;
      let decided = 0;
      for (const [i, e] of events.entries()) {
        const before = JSON.stringify(c);
        const { next, effects } = confirmStep(c, e, start + i * 1_000, RULES);
        expect(JSON.stringify(c)).toBe(before);
        expect(JSON.parse(JSON.stringify(next))).toEqual(next); // plain JSON
        decided += effects.filter((effect) => effect.type === 'decided' || effect.type === 'dropped').length;
        // Once settled, only its after-decision memory answers (a late reply), and nothing else changes.
        if (c.state === 'done') {
          expect({ ...next, after: null }).toEqual({ ...c, after: null });
          expect(effects.every((effect) => effect.type === 'late' || effect.type === 'forget')).toBe(true);
        }
        c = next;
      }
      expect(decided).toBe(c.state === 'done' ? 1 : 0);
    },
  );

  test.prop([fc.array(event, { maxLength: 25 }), fc.nat(100_000), fc.nat(100_000)])(
    'decides a timeless event (a record written, a send begun) the same at any time, so the runner reads no clock for it',
    (events, start, other) => {
      let c = NEW;
      for (const [i, e] of events.entries()) {
        const now = start + i * 1_000;
        const done = confirmStep(c, e, now, RULES);
        if (timeless(e)) expect(confirmStep(c, e, other, RULES)).toEqual(done);
        c = done.next;
      }
    },
  );
});
