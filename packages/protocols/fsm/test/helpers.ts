import { z } from 'zod';
import { defineMachine } from '../src/index.js';

/** A small order machine with named and inline guards, assign, an internal transition and a timeout. */
export const orderMachine = defineMachine({
  id: 'order',
  version: 2,
  initial: 'draft',
  context: { items: 0, paid: false },
  contextSchema: z.object({ items: z.number().int().min(0), paid: z.boolean() }),
  guards: { hasItems: (context: { items: number; paid: boolean }) => context.items > 0 },
  states: {
    draft: {
      on: {
        add: { assign: (context, event) => ({ items: context.items + Number(event.count ?? 1) }) },
        submit: { target: 'review', guard: 'hasItems' },
        cancel: 'cancelled',
      },
    },
    review: {
      on: {
        pay: [
          {
            target: 'paid',
            guard: (_context, event) => event.amount === 'full',
            assign: () => ({ paid: true }),
          },
          {
            target: 'partial',
            guard: function partialAmount(_context, event) {
              return event.amount === 'partial';
            },
          },
        ],
        timeout: 'cancelled',
        cancel: 'cancelled',
      },
      after: { 60000: 'timeout' },
    },
    partial: { on: { pay: { target: 'paid', assign: () => ({ paid: true }) } } },
    paid: { final: true },
    cancelled: { final: true },
  },
});

/** Its guard and assign read the event's `type`, so they see what the runtime hands them. */
export const echoMachine = defineMachine({
  id: 'echo',
  version: 1,
  initial: 'a',
  context: { last: '' },
  states: {
    a: {
      on: {
        go: {
          target: 'b',
          guard: (_context, event) => event.type === 'go',
          assign: (_context, event) => ({ last: event.type }),
        },
      },
    },
    b: { final: true },
  },
});
