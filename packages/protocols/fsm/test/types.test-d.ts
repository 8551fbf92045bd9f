import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  type ContextOf,
  createActor,
  createFlowSession,
  defineFlow,
  defineMachine,
  type EventOf,
  type requestMachine,
  type StateOf,
} from '../src/index.js';

const door = defineMachine({
  id: 'door',
  version: 1,
  initial: 'closed',
  context: { opened: 0 },
  guards: { unlocked: (context) => context.opened < 3 },
  states: {
    closed: {
      on: { open: { target: 'open', guard: 'unlocked', assign: (c) => ({ opened: c.opened + 1 }) } },
    },
    open: { on: { close: 'closed', break: 'broken' }, after: { 1000: 'close' } },
    broken: { final: true },
  },
});

describe('defineMachine types', () => {
  it('infers state and event names as literal types', () => {
    expectTypeOf<StateOf<typeof door>>().toEqualTypeOf<'closed' | 'open' | 'broken'>();
    expectTypeOf<EventOf<typeof door>>().toEqualTypeOf<'open' | 'close' | 'break'>();
    expectTypeOf<ContextOf<typeof door>>().toEqualTypeOf<{ opened: number }>();
  });

  it('types the actor from its machine', () => {
    const actor = createActor(door);
    expectTypeOf(actor.state).toEqualTypeOf<'closed' | 'open' | 'broken'>();
    expectTypeOf(actor.context).toEqualTypeOf<{ opened: number }>();
    expectTypeOf<StateOf<typeof actor>>().toEqualTypeOf<'closed' | 'open' | 'broken'>();
    expectTypeOf<EventOf<typeof actor>>().toEqualTypeOf<'open' | 'close' | 'break'>();
    actor.send('open');
    actor.send({ type: 'close', by: 'ada' });
    // @ts-expect-error send accepts only declared events
    actor.send('slam');
    // @ts-expect-error also in object form
    actor.send({ type: 'slam' });
  });

  it('rejects a target that names no state', () => {
    defineMachine({
      id: 'x',
      version: 1,
      initial: 'a',
      context: {},
      // @ts-expect-error 'zzz' is not a state
      states: { a: { on: { go: 'zzz' } }, b: {} },
    });
  });

  it('rejects an object target that names no state', () => {
    defineMachine({
      id: 'x',
      version: 1,
      initial: 'a',
      context: {},
      // @ts-expect-error 'zzz' is not a state
      states: { a: { on: { go: { target: 'zzz' } } }, b: {} },
    });
  });

  it('rejects an undeclared initial state', () => {
    defineMachine({
      id: 'x',
      version: 1,
      // @ts-expect-error 'q' is not a state
      initial: 'q',
      context: {},
      states: { a: { on: { go: 'b' } }, b: {} },
    });
  });

  it('rejects a guard name the machine does not define', () => {
    defineMachine({
      id: 'x',
      version: 1,
      initial: 'a',
      context: {},
      // @ts-expect-error 'nope' is not a guard
      states: { a: { on: { go: { target: 'b', guard: 'nope' } } }, b: {} },
    });
  });

  it('rejects a timeout whose event its state does not accept', () => {
    defineMachine({
      id: 'x',
      version: 1,
      initial: 'a',
      context: {},
      // @ts-expect-error 'gone' is not accepted by 'a'
      states: { a: { on: { go: 'b' }, after: { 100: 'gone' } }, b: {} },
    });
  });

  it('types inline guards and assign with the context', () => {
    defineMachine({
      id: 'x',
      version: 1,
      initial: 'a',
      context: { n: 1 },
      states: {
        a: {
          on: {
            go: {
              target: 'b',
              guard: (c) => {
                expectTypeOf(c).toEqualTypeOf<{ n: number }>();
                return c.n > 0;
              },
            },
          },
        },
        b: {},
      },
    });
  });

  it('types the request machine', () => {
    expectTypeOf<StateOf<typeof requestMachine>>().toEqualTypeOf<
      'pending' | 'approved' | 'rejected' | 'expired' | 'cancelled'
    >();
    expectTypeOf<EventOf<typeof requestMachine>>().toEqualTypeOf<
      'approve' | 'reject' | 'expire' | 'cancel'
    >();
  });
});

describe('defineFlow types', () => {
  const flow = defineFlow({
    id: 'f',
    version: 1,
    steps: [
      { name: 'goal', prompt: '?', fields: z.object({ g: z.string() }) },
      {
        name: 'confirm',
        prompt: '?',
        fields: z.object({ ok: z.literal(true) }),
        onFailure: { action: 'back', to: 'goal', message: 'again' },
      },
    ],
  });

  it('infers step names', () => {
    expectTypeOf<StateOf<typeof flow>>().toEqualTypeOf<'goal' | 'confirm' | 'done'>();
    expectTypeOf(createFlowSession(flow).step).toEqualTypeOf<'goal' | 'confirm' | 'done'>();
  });

  it('rejects going back to a step that does not exist', () => {
    defineFlow({
      id: 'f',
      version: 1,
      steps: [
        {
          name: 'goal',
          prompt: '?',
          fields: z.object({}),
          // @ts-expect-error 'nowhere' is not a step
          onFailure: { action: 'back', to: 'nowhere', message: '' },
        },
      ],
    });
  });
});
