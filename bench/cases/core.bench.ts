import { createDeadlineQueue, createManualClock, safeParseJson, validate } from '@parley/core';
import { z } from 'zod';
import { suite } from '../lib.js';

const Brief = z.object({
  topic: z.string(),
  horizon: z.enum(['short', 'medium', 'long']),
  key_levels: z.array(z.object({ price: z.number(), evidence: z.string() })),
});
const valid = {
  topic: 'BTC',
  horizon: 'short',
  key_levels: [
    { price: 1, evidence: 'a' },
    { price: 2, evidence: 'b' },
  ],
};
const invalid = { horizon: 'short', key_levels: [{ price: 1 }] };
const text = JSON.stringify({ from: 'lead', to: 'analyst', intent: 'assign_task', payload: valid });

suite('core: validate a valid payload', {
  cases: {
    'parley validate': () => () => validate(Brief, valid),
    'zod safeParse': () => () => Brief.safeParse(valid),
  },
  goals: [{ case: 'parley validate', vs: 'zod safeParse', slowerByAtMost: 1.3 }],
});

suite('core: validate an invalid payload (missing fields)', {
  cases: {
    'parley validate': () => () => validate(Brief, invalid),
    'zod safeParse': () => () => Brief.safeParse(invalid),
  },
  goals: [{ case: 'parley validate', vs: 'zod safeParse', slowerByAtMost: 1.5 }],
});

suite('core: parse untrusted JSON (~200 bytes)', {
  cases: {
    'parley safeParseJson': () => () => safeParseJson(text),
    'bare JSON.parse': () => () => JSON.parse(text),
  },
  goals: [{ case: 'parley safeParseJson', vs: 'bare JSON.parse', slowerByAtMost: 2 }],
});

suite('core: add and remove 100 deadlines', {
  cases: {
    'parley deadline queue': () => {
      const clock = createManualClock();
      const queue = createDeadlineQueue({ clock });
      const noop = (): void => {};
      return () => {
        const handles = [];
        for (let i = 0; i < 100; i++) handles.push(queue.add(1000 + ((i * 7919) % 100), noop));
        for (const h of handles) queue.remove(h);
      };
    },
    'one clock timer each': () => {
      const clock = createManualClock();
      const noop = (): void => {};
      return () => {
        const handles = [];
        for (let i = 0; i < 100; i++) handles.push(clock.setTimeout(noop, 1000 + ((i * 7919) % 100)));
        for (const h of handles) clock.clearTimeout(h);
      };
    },
  },
});
