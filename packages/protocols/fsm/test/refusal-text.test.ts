// A refusal's text is `message` (CONTRIBUTING, "Vocabulary"); `reason` stays one minor version as a
// deprecated copy of it, so a reader of the old field keeps the same text.
import { describe, expect, it } from 'vitest';
import { createActor, defineMachine, type FsmRefusal } from '../src/index.js';

const machine = defineMachine({
  id: 'door',
  version: 1,
  initial: 'shut',
  context: {},
  guards: {
    never: () => false,
    boom: () => {
      throw new Error('broken guard');
    },
  },
  states: {
    shut: {
      on: { open: { target: 'open', guard: 'never' }, kick: { target: 'open', guard: 'boom' }, lock: 'gone' },
    },
    open: {},
    gone: { final: true },
  },
});

describe('a refusal of an event', () => {
  it.each([
    ['guard_failed', 'open'],
    ['callback_failed', 'kick'],
    ['unknown_event', 'fly'],
  ] as const)('carries %s as `message`, with the same text in the deprecated `reason`', (code, event) => {
    // 'fly' is not declared: the cast lets the test send what a peer could send at run time
    const result = machine.transition(machine.initialSnapshot(), event as 'open');
    if (result.ok) throw new Error(`expected ${code}`);
    expect(result.code).toBe(code);
    expect(result.message).not.toBe('');
    expect(result.reason).toBe(result.message);
  });

  it('carries machine_done and event_not_accepted as `message` too', () => {
    const done = machine.transition(machine.initialSnapshot(), 'lock');
    if (!done.ok) throw new Error('expected the lock to be taken');
    const refused = machine.transition(done.snapshot, 'open') as FsmRefusal;
    expect([refused.code, refused.message, refused.reason]).toEqual([
      'machine_done',
      'The machine is done (final state "gone"); "open" is ignored',
      'The machine is done (final state "gone"); "open" is ignored',
    ]);
  });

  it('carries `closed` from a closed actor as `message`', () => {
    const actor = createActor(machine);
    actor.close();
    expect(actor.send('lock')).toMatchObject({
      ok: false,
      code: 'closed',
      message: 'The actor of "door" is closed',
    });
  });
});
