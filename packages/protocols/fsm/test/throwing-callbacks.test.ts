import { createManualClock } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createActor, defineMachine, type FsmRefusal } from '../src/index.js';

const boom = new Error('host bug');

/** `wait` times out after 100 ms into `gone`, through a guard or an assign that throws when asked to. */
function fragile(throwIn: 'guard' | 'assign') {
  return defineMachine({
    id: 'fragile',
    version: 1,
    initial: 'wait',
    context: { n: 0 },
    states: {
      wait: {
        on: {
          tick: {
            target: 'gone',
            guard: (): boolean => {
              if (throwIn === 'guard') throw boom;
              return true;
            },
            assign: (c) => {
              if (throwIn === 'assign') throw boom;
              return { n: c.n + 1 };
            },
          },
          poke: {
            target: 'gone',
            assign: () => {
              throw boom;
            },
          },
        },
        after: { 100: 'tick' },
      },
      gone: { final: true },
    },
  });
}

describe('a guard or assign that throws', () => {
  it.each(['guard', 'assign'] as const)(
    '[SETTLE-13] contains a %s that throws when a timeout fires: refused as callback_failed, nothing escapes the timer',
    (where) => {
      const clock = createManualClock({ now: 0 });
      const actor = createActor(fragile(where), { clock });
      const refused: FsmRefusal[] = [];
      actor.on('refused', (r) => void refused.push(r));
      expect(() => clock.advance(100)).not.toThrow();
      expect(actor.state).toBe('wait');
      expect(actor.context).toEqual({ n: 0 });
      expect(refused).toMatchObject([{ code: 'callback_failed', state: 'wait', event: 'tick' }]);
      expect(actor.deadlines).toEqual([]); // the timeout is spent
      expect(clock.pendingTimers()).toBe(0);
    },
  );

  it('[SETTLE-13] refuses an event whose assign throws with callback_failed and leaves the state as it was', () => {
    const actor = createActor(fragile('guard'), { clock: createManualClock() });
    const result = actor.send('poke');
    expect(result).toMatchObject({ ok: false, code: 'callback_failed', state: 'wait', event: 'poke' });
    expect(actor.state).toBe('wait');
    expect(actor.history).toEqual([]);
  });

  it('[SETTLE-13] says a throwing guard does not hold in can(), on the actor and the machine', () => {
    const machine = fragile('guard');
    const actor = createActor(machine, { clock: createManualClock() });
    expect(actor.can('tick')).toBe(false);
    expect(machine.can(machine.initialSnapshot(), 'tick')).toBe(false);
  });

  it('[SETTLE-13] refuses with callback_failed in the pure transition, for an event and for an overdue timeout', () => {
    const machine = fragile('assign');
    const start = machine.initialSnapshot({ at: 0 });
    expect(machine.transition(start, 'poke', { at: 10 })).toMatchObject({
      ok: false,
      code: 'callback_failed',
    });
    // the overdue timeout is refused and spent, then the event itself is refused the same way
    const late = machine.transition(start, 'tick', { at: 500 });
    expect(late).toMatchObject({ ok: false, code: 'callback_failed', state: 'wait', cause: boom });
  });
});
