import { createMessageBus, type MessageBus } from '@parley/bus';
import { createManualClock, createMemoryStore } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createConfirmGate } from '../src/index.js';
import { flush, REQUEST } from './helpers.js';

// A bus whose publishOutbound throws instead of returning a promise, or returns a rejected promise
// instead of a `rejected` result (a host's own bus): each failure (the prompt's, then the timeout
// notice's) is reported as the gate's `error`, never as an unhandled rejection, and the
// confirmation still ends at its deadline, is recorded and reaches its caller. Whether the prompt
// was seen is unknown, so it is not treated as a refused send.

const failures = {
  'throws at once': (error: Error) => () => {
    throw error;
  },
  'returns a rejected promise': (error: Error) => () => Promise.reject(error),
} as const;

describe.each(Object.entries(failures))('a prompt send that %s', (_, failing) => {
  it('is reported, and the confirmation still times out and is recorded', async () => {
    const clock = createManualClock({ now: 1_000_000 });
    const real = createMessageBus({ clock });
    const bus: MessageBus = Object.create(real);
    const thrown = new Error('no route');
    bus.publishOutbound = failing(thrown);
    const store = createMemoryStore({ clock });
    const gate = createConfirmGate({ bus, clock, store, timeoutMs: 60_000 });
    await gate.ready;
    const errors: unknown[] = [];
    gate.on('error', ({ error }) => errors.push(error));
    const decision = gate.request(REQUEST);
    await flush(); // waited for: the pending record's write and the send it starts
    expect(errors).toEqual([thrown]);
    clock.advance(60_000);
    const decided = await decision;
    expect(decided).toMatchObject({ outcome: 'timed_out' });
    expect(errors).toEqual([thrown, thrown]);
    await flush(); // waited for: the decision's write and the pending record's delete
    expect(await gate.audit()[Symbol.asyncIterator]().next()).toMatchObject({ value: { id: decided.id } });
    expect(await store.list('confirm:pending:')[Symbol.asyncIterator]().next()).toMatchObject({ done: true });
  });
});
