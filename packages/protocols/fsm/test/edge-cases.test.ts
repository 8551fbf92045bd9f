import { createManualClock, isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createActor, createFlowSession, defineFlow, defineMachine, toMermaid } from '../src/index.js';

describe('edge cases of definitions', () => {
  it('names an anonymous guard "guard" in refusals', () => {
    const anonymous = Object.defineProperty(() => false, 'name', { value: '' });
    const machine = defineMachine({
      id: 'anon',
      version: 1,
      initial: 'a',
      context: {},
      states: { a: { on: { go: { target: 'b', guard: anonymous, description: 'never taken' } } }, b: {} },
    });
    expect(createActor(machine, { clock: createManualClock() }).send('go')).toMatchObject({
      code: 'guard_failed',
      guard: 'guard',
    });
  });

  it('refuses a target that is not a string', () => {
    let error: unknown;
    try {
      defineMachine({
        id: 'n',
        version: 1,
        initial: 'a',
        context: {},
        states: { a: { on: { go: { target: 5 as never } } } },
      });
    } catch (err) {
      error = err;
    }
    expect(isParleyError(error, 'invalid_definition')).toBe(true);
  });

  it('treats an empty after map as no timeout', () => {
    const machine = defineMachine({
      id: 'e',
      version: 1,
      initial: 'a',
      context: {},
      states: { a: { on: { go: 'a' }, after: {} } },
    });
    const clock = createManualClock();
    createActor(machine, { clock });
    expect(clock.pendingTimers()).toBe(0);
  });

  it('restores several deadlines earliest first', () => {
    const machine = defineMachine({
      id: 'two',
      version: 1,
      initial: 'a',
      context: {},
      states: {
        a: { on: { warn: { target: 'a' }, stop: 'b' }, after: { 100: 'warn', 200: 'stop' } },
        b: { final: true },
      },
    });
    const snapshot = {
      ...machine.initialSnapshot(),
      deadlines: [
        { at: 200, event: 'stop' },
        { at: 100, event: 'warn' },
      ],
    };
    expect(machine.restore(snapshot).deadlines.map((d) => d.event)).toEqual(['warn', 'stop']);
  });
});

describe('edge cases of flows', () => {
  const flow = defineFlow({
    id: 'edge',
    version: 1,
    context: { channel: 'telegram' },
    steps: [
      {
        name: 'first',
        prompt: 'n?',
        fields: z.object({ n: z.number() }),
        skip: () => false,
        onFailure: { action: 'manual_review', queue: 'q', message: 'review' },
      },
    ],
  });

  it('keeps a submission that is not JSON as null in the review', () => {
    const session = createFlowSession(flow, { clock: createManualClock() });
    session.submit({ n: 1n });
    expect(session.snapshot().reviews[0]?.submitted).toBeNull();
  });

  it('reports done and takes its context from options', () => {
    const session = createFlowSession(flow, {
      clock: createManualClock(),
      context: { channel: 'email' },
      historyLimit: 0,
    });
    let event = '';
    session.on('transition', (t) => {
      event = t.event;
    });
    expect(session.done).toBe(false);
    session.submit({ n: 1 });
    expect(session.done).toBe(true);
    expect(event).toBe('submit');
    expect(session.snapshot().history).toEqual([]);
    expect(session.snapshot().context).toEqual({ channel: 'email' });
  });

  it('draws a skippable first step from the start', () => {
    expect(toMermaid(flow)).toContain('[*] --> done: skip first [skip]');
  });
});
