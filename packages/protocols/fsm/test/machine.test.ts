import { isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { defineMachine, FsmError, FSM_REFUSAL_CODES } from '../src/index.js';
import { echoMachine, orderMachine } from './helpers.js';

const define = (config: unknown) => () => defineMachine(config as Parameters<typeof defineMachine>[0]);
const valid = {
  id: 'm',
  version: 1,
  initial: 'a',
  context: {},
  states: { a: { on: { go: 'b' } }, b: { final: true } },
};

describe('defineMachine', () => {
  it('lists states, events and final states in declaration order', () => {
    expect(orderMachine.states).toEqual(['draft', 'review', 'partial', 'paid', 'cancelled']);
    expect(orderMachine.events).toEqual(['add', 'submit', 'cancel', 'pay', 'timeout']);
    expect(orderMachine.finalStates).toEqual(['paid', 'cancelled']);
    expect(orderMachine.initial).toBe('draft');
  });

  it.each([
    ['an empty id', { ...valid, id: '' }],
    ['a version that is not a positive integer', { ...valid, version: 0 }],
    ['no states', { ...valid, states: {} }],
    ['an undeclared initial state', { ...valid, initial: 'zz' }],
    ['a target that names no state', { ...valid, states: { a: { on: { go: 'zz' } }, b: {} } }],
    [
      'an unknown guard name',
      { ...valid, states: { a: { on: { go: { target: 'b', guard: 'nope' } } }, b: {} } },
    ],
    [
      'an assign that is not a function',
      { ...valid, states: { a: { on: { go: { target: 'b', assign: 1 } } }, b: {} } },
    ],
    ['an empty list of transitions', { ...valid, states: { a: { on: { go: [] } }, b: {} } }],
    [
      'a final state with transitions',
      { ...valid, states: { a: { on: { go: 'b' } }, b: { final: true, on: { go: 'a' } } } },
    ],
    ['a timeout of zero', { ...valid, states: { a: { on: { go: 'b' }, after: { 0: 'go' } }, b: {} } }],
    [
      'a timeout whose event the state does not accept',
      { ...valid, states: { a: { on: { go: 'b' }, after: { 10: 'gone' } }, b: {} } },
    ],
  ])('refuses %s with invalid_definition', (_name, config) => {
    const error = (() => {
      try {
        define(config)();
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(FsmError);
    expect(isParleyError(error, 'invalid_definition')).toBe(true);
  });

  it('accepts the same definition once it is valid', () => {
    expect(define(valid)().states).toEqual(['a', 'b']);
  });
});

describe('Machine.transition', () => {
  it('returns the next snapshot without changing the one given', () => {
    const start = orderMachine.initialSnapshot({ at: 100 });
    const added = orderMachine.transition(start, { type: 'add', count: 2 }, { at: 150 });
    expect(added.ok && added.snapshot.context).toEqual({ items: 2, paid: false });
    expect(added.ok && added.snapshot.history).toEqual([
      { from: 'draft', to: 'draft', event: 'add', at: 150 },
    ]);
    expect(start.context).toEqual({ items: 0, paid: false });
    expect(start.history).toEqual([]);
  });

  it('sets the deadlines of the state it enters from the transition time', () => {
    let snapshot = orderMachine.initialSnapshot({ at: 0 });
    const added = orderMachine.transition(snapshot, 'add', { at: 5 });
    if (!added.ok) throw new Error('add refused');
    snapshot = added.snapshot;
    const submitted = orderMachine.transition(snapshot, 'submit', { at: 10 });
    expect(submitted.ok && submitted.snapshot.deadlines).toEqual([{ at: 60_010, event: 'timeout' }]);
  });

  it('applies a timeout that fell due before the event, then refuses the event', () => {
    const added = orderMachine.transition(orderMachine.initialSnapshot(), 'add');
    if (!added.ok) throw new Error('add refused');
    const review = orderMachine.transition(added.snapshot, 'submit', { at: 0 });
    if (!review.ok) throw new Error('submit refused');
    const late = orderMachine.transition(review.snapshot, { type: 'pay', amount: 'full' }, { at: 60_000 });
    expect(late).toMatchObject({ ok: false, code: 'machine_done', state: 'cancelled' });
  });

  it('refuses an event the current state does not accept with event_not_accepted', () => {
    const result = orderMachine.transition(orderMachine.initialSnapshot(), { type: 'pay', amount: 'full' });
    expect(result).toEqual({
      ok: false,
      code: 'event_not_accepted',
      state: 'draft',
      event: 'pay',
      message: 'State "draft" does not accept "pay"',
      reason: 'State "draft" does not accept "pay"',
    });
  });

  it('refuses an event the machine never declares with unknown_event', () => {
    const result = orderMachine.transition(orderMachine.initialSnapshot(), 'explode' as 'add');
    expect(result).toMatchObject({ ok: false, code: 'unknown_event', event: 'explode' });
  });

  it('refuses with guard_failed naming the named guard', () => {
    const result = orderMachine.transition(orderMachine.initialSnapshot(), 'submit');
    expect(result).toMatchObject({ ok: false, code: 'guard_failed', guard: 'hasItems', state: 'draft' });
  });

  it('takes the first candidate whose guard holds and names the last guard when none does', () => {
    const review = {
      ...orderMachine.initialSnapshot(),
      state: 'review' as const,
      context: { items: 1, paid: false },
    };
    expect(orderMachine.transition(review, { type: 'pay', amount: 'partial' })).toMatchObject({
      ok: true,
      to: 'partial',
    });
    expect(orderMachine.transition(review, { type: 'pay', amount: 'full' })).toMatchObject({
      ok: true,
      to: 'paid',
    });
    expect(orderMachine.transition(review, { type: 'pay', amount: 'none' })).toMatchObject({
      code: 'guard_failed',
      guard: 'partialAmount',
    });
  });

  it('refuses any event in a final state with machine_done', () => {
    const done = orderMachine.transition(orderMachine.initialSnapshot(), 'cancel');
    if (!done.ok) throw new Error('cancel refused');
    expect(done.snapshot.done).toBe(true);
    expect(orderMachine.transition(done.snapshot, 'add')).toMatchObject({ ok: false, code: 'machine_done' });
  });

  it('marks the snapshot done only when the state it enters is final', () => {
    const added = orderMachine.transition(orderMachine.initialSnapshot(), 'add');
    const cancelled = orderMachine.transition(orderMachine.initialSnapshot(), 'cancel');
    expect(added.ok && added.snapshot.done).toBe(false);
    expect(cancelled.ok && cancelled.snapshot.done).toBe(true);
  });

  it('marks the initial snapshot done when the initial state is final', () => {
    const machine = defineMachine({
      id: 'over',
      version: 1,
      initial: 'end',
      context: {},
      states: { end: { final: true } },
    });
    expect(machine.initialSnapshot().done).toBe(true);
  });

  it('hands guards and assigns an event object { type } when the event is sent by name', () => {
    const result = echoMachine.transition(echoMachine.initialSnapshot(), 'go');
    expect(result).toMatchObject({ ok: true, to: 'b' });
    expect(result.ok && result.snapshot.context).toEqual({ last: 'go' });
  });

  it('keeps only the last historyLimit entries', () => {
    let snapshot = orderMachine.initialSnapshot();
    for (let i = 1; i <= 4; i++) {
      const next = orderMachine.transition(snapshot, 'add', { at: i, historyLimit: 2 });
      if (!next.ok) throw new Error('add refused');
      snapshot = next.snapshot;
    }
    expect(snapshot.history.map((h) => h.at)).toEqual([3, 4]);
  });

  it('tells with can() whether an event would be taken, guards included', () => {
    const start = orderMachine.initialSnapshot();
    expect(orderMachine.can(start, 'add')).toBe(true);
    expect(orderMachine.can(start, 'submit')).toBe(false);
    expect(orderMachine.can({ ...start, state: 'nowhere' as 'draft' }, 'add')).toBe(false);
  });

  it('throws unknown_state for a snapshot whose state the machine lacks', () => {
    expect(() =>
      orderMachine.transition({ ...orderMachine.initialSnapshot(), state: 'gone' as 'draft' }, 'add'),
    ).toThrow(expect.objectContaining({ code: 'unknown_state' }));
  });

  it('names the machine and the state in the details of unknown_state', () => {
    expect(() =>
      orderMachine.transition({ ...orderMachine.initialSnapshot(), state: 'gone' as 'draft' }, 'add'),
    ).toThrow(expect.objectContaining({ details: { machine: 'order', state: 'gone' } }));
  });

  it('exports every refusal code', () => {
    expect(FSM_REFUSAL_CODES).toEqual([
      'unknown_event',
      'event_not_accepted',
      'guard_failed',
      'machine_done',
      'closed',
      'callback_failed',
    ]);
  });
});
