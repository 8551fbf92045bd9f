// A snapshot comes back from storage that someone may have edited. Restore accepts only what the
// flow or machine could have produced: no skipped steps, no answers ahead of their step, no history
// or deadlines that do not fit the state.
import { createManualClock, isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createActor, createFlowSession, defineFlow, defineMachine } from '../src/index.js';
import { cleanupFlow, seedAnswers } from './cleanup-flow.js';
import { orderMachine } from './helpers.js';

type Json = Record<string, unknown>;

/** The error a restore throws: its code and details (or `undefined` when it restores). */
function refusalOf(run: () => unknown): { code: string; details: Json } | undefined {
  try {
    run();
  } catch (error) {
    if (isParleyError(error)) return { code: error.code, details: error.details as Json };
    throw error;
  }
  return undefined;
}

const json = <T>(value: T): Json => JSON.parse(JSON.stringify(value)) as Json;

/** A cleanup session driven with the seed answers up to (not including) `stop`. */
function cleanupAt(stop: string) {
  const session = createFlowSession(cleanupFlow, { clock: createManualClock({ now: 1_000 }) });
  for (const [step, answer] of Object.entries(seedAnswers)) {
    if (step === stop) break;
    for (const part of Array.isArray(answer) ? answer : [answer]) session.submit(part);
  }
  return session;
}

describe('flow restore: every step before the current one', () => {
  it('refuses the tampered seed record at execute with only the goal filled in', () => {
    const clock = createManualClock({ now: 5_000 });
    const tampered = {
      ...json(cleanupFlow.start({ at: 1_000 })),
      state: 'execute',
      fields: { goal: seedAnswers.goal },
    };
    const refusal = refusalOf(() => createFlowSession(cleanupFlow, { clock, snapshot: tampered }));
    expect(refusal).toEqual({
      code: 'invalid_snapshot',
      details: expect.objectContaining({ flow: 'cleanup', step: 'platform-scope' }),
    });
    expect(clock.pendingTimers()).toBe(0);
  });

  it('restores the same record once every step before execute is completed', () => {
    const snapshot = json(cleanupAt('execute').snapshot());
    expect(cleanupFlow.restore(snapshot)).toMatchObject({ state: 'execute', part: 0 });
  });

  it('refuses a completed step whose fields fail its schema, naming the step', () => {
    const snapshot = json(cleanupAt('execute').snapshot());
    const fields = { ...(snapshot.fields as Json), 'risk-confirm': { confirm1: 'YES', confirm2: 'YES' } };
    expect(refusalOf(() => cleanupFlow.restore({ ...snapshot, fields }))).toEqual({
      code: 'invalid_fields',
      details: expect.objectContaining({ step: 'risk-confirm', missingFields: ['confirm3'] }),
    });
  });

  it('refuses a completed step whose fields fail its exit condition, with the reason', () => {
    const snapshot = json(cleanupAt('auth').snapshot());
    const fields = { ...(snapshot.fields as Json), goal: { goal_type: 'delete', intent_summary: 'stuff' } };
    expect(refusalOf(() => cleanupFlow.restore({ ...snapshot, fields }))).toEqual({
      code: 'invalid_fields',
      details: expect.objectContaining({ step: 'goal', reason: 'The goal is too vague' }),
    });
  });

  it('refuses fields of a step after the current one', () => {
    const snapshot = json(cleanupAt('evidence').snapshot());
    const fields = {
      ...(snapshot.fields as Json),
      'export-decision': { export_before_delete: 'no' },
    };
    expect(refusalOf(() => cleanupFlow.restore({ ...snapshot, fields }))).toEqual({
      code: 'invalid_snapshot',
      details: expect.objectContaining({ step: 'export-decision' }),
    });
  });

  it('refuses answers for the current step at its first part', () => {
    const snapshot = json(cleanupAt('risk-confirm').snapshot());
    const fields = { ...(snapshot.fields as Json), 'risk-confirm': { confirm1: 'YES' } };
    expect(refusalOf(() => cleanupFlow.restore({ ...snapshot, fields }))?.details.step).toBe('risk-confirm');
  });

  it('refuses multi-part progress without the answers of the earlier parts', () => {
    const snapshot = json(cleanupAt('risk-confirm').snapshot());
    expect(refusalOf(() => cleanupFlow.restore({ ...snapshot, part: 2 }))).toEqual({
      code: 'invalid_snapshot',
      details: expect.objectContaining({ step: 'risk-confirm' }),
    });
    const fields = { ...(snapshot.fields as Json), 'risk-confirm': { confirm1: 'YES' } };
    expect(refusalOf(() => cleanupFlow.restore({ ...snapshot, part: 2, fields }))).toEqual({
      code: 'invalid_fields',
      details: expect.objectContaining({ step: 'risk-confirm', missingFields: ['confirm2'] }),
    });
  });

  it('refuses progress beyond the parts of a step and a part once done', () => {
    const done = createFlowSession(
      defineFlow({ id: 'one', version: 1, steps: [{ name: 'a', prompt: '?', fields: z.object({}) }] }),
      { clock: createManualClock() },
    );
    done.submit({});
    expect(refusalOf(() => done.flow.restore({ ...json(done.snapshot()), part: 1 }))?.code).toBe(
      'invalid_snapshot',
    );
    expect(
      refusalOf(() => cleanupFlow.restore({ ...json(cleanupAt('execute').snapshot()), part: 2 })),
    ).toEqual({
      code: 'invalid_snapshot',
      details: expect.objectContaining({ step: 'execute' }),
    });
  });

  it('refuses a done flag on a step that is not final', () => {
    const snapshot = json(cleanupAt('execute').snapshot());
    expect(refusalOf(() => cleanupFlow.restore({ ...snapshot, done: true }))?.code).toBe('invalid_snapshot');
  });
});

describe('flow restore: skipped and defaulted steps', () => {
  const skipFlow = defineFlow({
    id: 'skip',
    version: 1,
    steps: [
      { name: 'kind', prompt: 'Kind?', fields: z.object({ kind: z.enum(['simple', 'full']) }) },
      {
        name: 'details',
        prompt: 'Details?',
        fields: z.object({ details: z.string() }),
        skip: (collected) => collected.kind?.kind === 'simple',
      },
      { name: 'end', prompt: 'Done?', fields: z.object({ ok: z.boolean() }) },
    ],
  });

  it('accepts a step skipped by its condition on the restored data', () => {
    const session = createFlowSession(skipFlow, { clock: createManualClock() });
    session.submit({ kind: 'simple' });
    expect(skipFlow.restore(json(session.snapshot())).state).toBe('end');
  });

  it('refuses a missing step whose skip condition does not hold on the restored data', () => {
    const session = createFlowSession(skipFlow, { clock: createManualClock() });
    session.submit({ kind: 'simple' });
    const tampered = { ...json(session.snapshot()), fields: { kind: { kind: 'full' } } };
    expect(refusalOf(() => skipFlow.restore(tampered))).toEqual({
      code: 'invalid_snapshot',
      details: expect.objectContaining({ step: 'details' }),
    });
  });

  const defaulted = defineFlow({
    id: 'defaulted',
    version: 1,
    steps: [
      {
        name: 'size',
        prompt: 'Size (> 5)?',
        fields: z.object({ n: z.number() }),
        exit: (fields) => Number(fields.n) > 5 || 'too small',
        onFailure: { action: 'default', value: { n: 0 }, message: 'Using no size' },
      },
      { name: 'end', prompt: 'Done?', fields: z.object({ ok: z.boolean() }) },
    ],
  });
  const defaultedSnapshot = () => {
    const session = createFlowSession(defaulted, { clock: createManualClock() });
    session.submit({ n: 1 });
    return json(session.snapshot());
  };

  it('accepts fields its default policy stood in for, although they fail the exit condition', () => {
    expect(defaulted.restore(defaultedSnapshot()).fields.size).toEqual({ n: 0 });
  });

  it('refuses such fields without the notice of the default', () => {
    expect(refusalOf(() => defaulted.restore({ ...defaultedSnapshot(), notices: [] }))).toEqual({
      code: 'invalid_fields',
      details: expect.objectContaining({ step: 'size', reason: 'too small' }),
    });
  });

  it('refuses other fields behind the notice of a default', () => {
    const tampered = { ...defaultedSnapshot(), fields: { size: { n: 1 } } };
    expect(refusalOf(() => defaulted.restore(tampered))?.details.step).toBe('size');
  });

  it('accepts the fields of a policy function that stood in with a notice', () => {
    const flow = defineFlow({
      id: 'fn-default',
      version: 1,
      steps: [
        {
          name: 'size',
          prompt: '?',
          fields: z.object({ n: z.number() }),
          exit: (fields) => Number(fields.n) > 5,
          onFailure: () => ({ action: 'default', value: { n: 2 }, message: 'Defaulted' }),
        },
        { name: 'end', prompt: '?', fields: z.object({}) },
      ],
    });
    const session = createFlowSession(flow, { clock: createManualClock() });
    session.submit({ n: 1 });
    expect(flow.restore(json(session.snapshot())).state).toBe('end');
    expect(refusalOf(() => flow.restore({ ...json(session.snapshot()), notices: [] }))).toMatchObject({
      code: 'invalid_fields',
      details: { reason: 'exit condition' },
    });
  });
});

describe('flow restore: history, status and bookkeeping', () => {
  const at = (stop: string) => json(cleanupAt(stop).snapshot());

  it('refuses a history that does not end in the current step', () => {
    const snapshot = at('auth');
    const history = (snapshot.history as Json[]).slice(0, 1);
    expect(refusalOf(() => cleanupFlow.restore({ ...snapshot, history }))).toEqual({
      code: 'invalid_snapshot',
      details: expect.objectContaining({ entry: 0 }),
    });
  });

  it('refuses a history move a flow never makes', () => {
    const snapshot = at('auth');
    const history = [{ from: 'goal', to: 'auth', event: 'back', at: 1_000 }];
    expect(refusalOf(() => cleanupFlow.restore({ ...snapshot, history }))?.code).toBe('invalid_snapshot');
    const unknown = [{ from: 'goal', to: 'nowhere', event: 'submit', at: 1_000 }];
    expect(refusalOf(() => cleanupFlow.restore({ ...snapshot, history: unknown }))?.code).toBe(
      'invalid_snapshot',
    );
  });

  it('accepts a history with a move back', () => {
    const session = cleanupAt('risk-confirm');
    session.submit({ confirm1: 'no' });
    const snapshot = json(session.snapshot());
    expect(cleanupFlow.restore(snapshot).history.at(-1)).toMatchObject({ to: 'evidence', event: 'back' });
  });

  it('refuses a blocked status on a step whose policy does not block', () => {
    expect(refusalOf(() => cleanupFlow.restore({ ...at('auth'), status: 'blocked' }))).toEqual({
      code: 'invalid_snapshot',
      details: expect.objectContaining({ step: 'auth' }),
    });
    expect(cleanupFlow.restore({ ...at('export-decision'), status: 'blocked' }).status).toBe('blocked');
  });

  it('refuses a mark no failure policy sets, when every policy is known', () => {
    const flow = defineFlow({
      id: 'marks',
      version: 1,
      steps: [
        {
          name: 'save',
          prompt: '?',
          fields: z.object({ saved: z.literal(true) }),
          onFailure: { action: 'retry', mark: 'close_pending', message: 'retrying' },
        },
      ],
    });
    const snapshot = json(flow.start());
    expect(flow.restore({ ...snapshot, mark: 'close_pending' }).mark).toBe('close_pending');
    expect(refusalOf(() => flow.restore({ ...snapshot, mark: 'approved' }))?.code).toBe('invalid_snapshot');
  });

  it.each([
    ['negative attempts', { attempts: { goal: -1 } }],
    ['attempts of an unknown step', { attempts: { nope: 1 } }],
    ['a notice of an unknown step', { notices: [{ step: 'nope', message: 'x', at: 0 }] }],
    ['a review that is not an object', { reviews: ['x'] }],
  ])('refuses %s', (_name, patch) => {
    expect(refusalOf(() => cleanupFlow.restore({ ...at('auth'), ...patch }))?.code).toBe('invalid_snapshot');
  });

  it('refuses the fields of a step that are not an object', () => {
    const snapshot = at('auth');
    const fields = { ...(snapshot.fields as Json), goal: 'delete it' };
    expect(refusalOf(() => cleanupFlow.restore({ ...snapshot, fields }))).toEqual({
      code: 'invalid_fields',
      details: expect.objectContaining({ step: 'goal' }),
    });
  });
});

describe('machine restore', () => {
  const reviewing = (now = 1_000) => {
    const clock = createManualClock({ now });
    const actor = createActor(orderMachine, { clock, historyLimit: 100 });
    actor.send('add');
    clock.advance(500);
    actor.send('submit');
    return json(actor.snapshot());
  };

  it('accepts the snapshot of a running actor', () => {
    expect(orderMachine.restore(reviewing()).deadlines).toEqual([{ at: 61_500, event: 'timeout' }]);
  });

  it.each([
    ['a done flag on a state that is not final', (s: Json) => ({ ...s, done: true })],
    ['a done flag that is not a boolean', (s: Json) => ({ ...s, done: 'no' })],
    [
      'a history entry that is no transition of the machine',
      (s: Json) => ({ ...s, history: [{ from: 'draft', to: 'paid', event: 'pay', at: 1_000 }] }),
    ],
    [
      'a history that does not end in the state',
      (s: Json) => ({ ...s, history: (s.history as Json[]).slice(0, 1) }),
    ],
    [
      'a deadline pushed further away than its timeout',
      (s: Json) => ({ ...s, deadlines: [{ at: 10_000_000, event: 'timeout' }] }),
    ],
    ['a timeout dropped before it was due', (s: Json) => ({ ...s, deadlines: [] })],
    [
      'the same deadline twice',
      (s: Json) => ({
        ...s,
        deadlines: [
          { at: 61_500, event: 'timeout' },
          { at: 61_500, event: 'timeout' },
        ],
      }),
    ],
  ])('refuses %s with invalid_snapshot', (_name, change) => {
    expect(refusalOf(() => orderMachine.restore(change(reviewing())))?.code).toBe('invalid_snapshot');
  });

  it('refuses a deadline that does not match when the history shows the state was entered', () => {
    const snapshot = reviewing();
    const history = (snapshot.history as Json[]).map((h) => (h.to === 'review' ? { ...h, at: 900 } : h));
    expect(refusalOf(() => orderMachine.restore({ ...snapshot, history }))?.code).toBe('invalid_snapshot');
  });

  it('refuses a deadline later than the last update allows even without history', () => {
    const snapshot = { ...reviewing(), history: [], deadlines: [{ at: 70_000, event: 'timeout' }] };
    expect(refusalOf(() => orderMachine.restore(snapshot))?.code).toBe('invalid_snapshot');
    expect(orderMachine.restore({ ...snapshot, deadlines: [{ at: 61_500, event: 'timeout' }] }).state).toBe(
      'review',
    );
  });

  it('creates no actor and sets no timer for a refused snapshot', () => {
    const clock = createManualClock({ now: 2_000 });
    const tampered = { ...reviewing(), deadlines: [{ at: 10_000_000, event: 'timeout' }] };
    expect(refusalOf(() => createActor(orderMachine, { clock, snapshot: tampered }))?.code).toBe(
      'invalid_snapshot',
    );
    expect(clock.pendingTimers()).toBe(0);
  });

  const ticker = defineMachine({
    id: 'ticker',
    version: 1,
    initial: 'on',
    context: { armed: false },
    states: {
      on: {
        on: { tick: { target: 'off', guard: (c) => c.armed }, warn: {}, stop: 'off' },
        after: { 100: 'warn', 200: 'tick', 300: 'stop' },
      },
      off: { final: true },
    },
  });

  it('accepts timeouts spent by a guard or an internal transition once they fell due', () => {
    const clock = createManualClock();
    const actor = createActor(ticker, { clock, historyLimit: 0 });
    clock.advance(250);
    const snapshot = json(actor.snapshot());
    expect(snapshot).toMatchObject({ updatedAt: 200, deadlines: [{ at: 300, event: 'stop' }] });
    expect(ticker.restore(snapshot).deadlines).toEqual([{ at: 300, event: 'stop' }]);
    expect(refusalOf(() => ticker.restore({ ...snapshot, updatedAt: 150 }))?.code).toBe('invalid_snapshot');
  });

  it('refuses deadlines that are not the longest timeouts left', () => {
    const start = json(ticker.initialSnapshot({ at: 0 }));
    const tampered = { ...start, updatedAt: 150, deadlines: [{ at: 100, event: 'warn' }] };
    expect(refusalOf(() => ticker.restore(tampered))?.code).toBe('invalid_snapshot');
  });

  it('refuses a state without timeouts that has deadlines', () => {
    const snapshot = { ...json(orderMachine.initialSnapshot()), deadlines: [{ at: 1, event: 'add' }] };
    expect(refusalOf(() => orderMachine.restore(snapshot))?.code).toBe('invalid_snapshot');
  });
});
