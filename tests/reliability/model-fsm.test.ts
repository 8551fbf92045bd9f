import { fc, test } from '@fast-check/vitest';
import { createManualClock } from '@parley/core';
import {
  type Actor,
  createActor,
  defineMachine,
  defineRequestMachine,
  type Machine,
  type MachineSnapshot,
  type SendResult,
} from '@parley/fsm';
import { describe, expect } from 'vitest';
import { cite } from './catalogue.js';
import { FULL, runs } from './config.js';

/** PARLEY_SOAK=full runs 100× more cases: give them time. */
const TIMEOUT_MS = FULL ? 1_800_000 : 30_000;

// Random machines against a reference interpreter written the slow, obvious way. The actor, the
// pure `machine.transition` and a snapshot → JSON → restore must all agree with it, deadlines
// included, and a final state must absorb everything sent after it.

const BUDGET = 2;
const UNKNOWN_EVENT = 'no_such_event';

type TransitionSpecModel =
  | { readonly kind: 'target'; readonly to: number }
  | { readonly kind: 'guarded'; readonly to: number | undefined }
  | { readonly kind: 'fallback'; readonly first: number; readonly second: number }
  | { readonly kind: 'internal' };

interface StateSpec {
  readonly final: boolean;
  readonly on: ReadonlyMap<number, TransitionSpecModel>;
  /** Timeouts: distinct delays, each naming an event the state accepts. */
  readonly after: readonly { readonly ms: number; readonly event: number }[];
}

interface Spec {
  readonly states: readonly StateSpec[];
  readonly events: number;
}

const stateName = (i: number): string => `s${i}`;
const eventName = (i: number): string => `e${i}`;

function specArbitrary(): fc.Arbitrary<Spec> {
  return fc
    .record({ states: fc.integer({ min: 2, max: 6 }), events: fc.integer({ min: 1, max: 4 }) })
    .chain(({ states, events }) => {
      const target = fc.nat(states - 1);
      const transition: fc.Arbitrary<TransitionSpecModel> = fc.oneof(
        fc.record({ kind: fc.constant('target' as const), to: target }),
        fc.record({ kind: fc.constant('guarded' as const), to: fc.option(target, { nil: undefined }) }),
        fc.record({ kind: fc.constant('fallback' as const), first: target, second: target }),
        fc.record({ kind: fc.constant('internal' as const) }),
      );
      const state = (index: number): fc.Arbitrary<StateSpec> =>
        fc
          .record({
            final: index === 0 ? fc.constant(false) : fc.boolean(),
            on: fc.array(fc.tuple(fc.nat(events - 1), transition), { maxLength: events }),
            after: fc.uniqueArray(fc.tuple(fc.integer({ min: 100, max: 5_000 }), fc.nat(events - 1)), {
              maxLength: 2,
              selector: ([ms]) => ms,
            }),
          })
          .map(({ final, on, after }) => {
            const map = final ? new Map<number, TransitionSpecModel>() : new Map(on);
            const accepted = [...map.keys()];
            const timeouts =
              accepted.length === 0
                ? []
                : after
                    .map(([ms, event]) => ({ ms, event: accepted[event % accepted.length] as number }))
                    .sort((a, b) => a.ms - b.ms);
            return { final, on: map, after: timeouts };
          });
      return fc
        .tuple(...Array.from({ length: states }, (_, i) => state(i)))
        .map((list) => ({ states: list, events }));
    });
}

type Ctx = { readonly n: number };

/** Builds the machine a spec describes. */
function build(spec: Spec): Machine<string, string, Ctx> {
  const bump = (context: Ctx): Partial<Ctx> => ({ n: context.n + 1 });
  const states: Record<string, unknown> = {};
  spec.states.forEach((state, i) => {
    if (state.final) {
      states[stateName(i)] = { final: true };
      return;
    }
    const on: Record<string, unknown> = {};
    for (const [event, t] of state.on) {
      on[eventName(event)] =
        t.kind === 'target'
          ? stateName(t.to)
          : t.kind === 'guarded'
            ? { ...(t.to === undefined ? {} : { target: stateName(t.to) }), guard: 'hasBudget', assign: bump }
            : t.kind === 'fallback'
              ? [
                  { target: stateName(t.first), guard: 'hasBudget', assign: bump },
                  { target: stateName(t.second) },
                ]
              : { assign: bump };
    }
    const after = Object.fromEntries(state.after.map((a) => [a.ms, eventName(a.event)]));
    states[stateName(i)] = { on, ...(state.after.length === 0 ? {} : { after }) };
  });
  // The configuration is built at run time, so its literal types are unknown; the shape is checked by defineMachine.
  const config = {
    id: 'random',
    version: 1,
    initial: 's0',
    context: { n: 0 },
    guards: { hasBudget: (context: Ctx) => context.n < BUDGET },
    states,
  } as never;
  return defineMachine(config) as unknown as Machine<string, string, Ctx>;
}

interface History {
  readonly from: string;
  readonly to: string;
  readonly event: string;
  readonly at: number;
}

/** The reference interpreter. */
class Reference {
  state = 0;
  n = 0;
  deadlines: { at: number; event: number }[] = [];
  readonly history: History[] = [];

  constructor(
    private readonly spec: Spec,
    at: number,
  ) {
    this.deadlines = this.enter(0, at);
  }

  get final(): boolean {
    return (this.spec.states[this.state] as StateSpec).final;
  }

  private enter(state: number, at: number): { at: number; event: number }[] {
    return (this.spec.states[state] as StateSpec).after.map((a) => ({ at: at + a.ms, event: a.event }));
  }

  /** The transition `event` takes now: a target (undefined for internal) plus whether it counts, or a refusal code. */
  private choose(event: number): { to: number | undefined; bump: boolean } | { code: string } {
    const spec = (this.spec.states[this.state] as StateSpec).on.get(event);
    if (spec === undefined) {
      const declared = this.spec.states.some((state) => state.on.has(event));
      return { code: this.final ? 'machine_done' : declared ? 'event_not_accepted' : 'unknown_event' };
    }
    const budget = this.n < BUDGET;
    switch (spec.kind) {
      case 'target':
        return { to: spec.to, bump: false };
      case 'internal':
        return { to: undefined, bump: true };
      case 'guarded':
        return budget ? { to: spec.to, bump: true } : { code: 'guard_failed' };
      case 'fallback':
        return budget ? { to: spec.first, bump: true } : { to: spec.second, bump: false };
    }
  }

  private take(choice: { to: number | undefined; bump: boolean }, event: number, at: number): void {
    const from = this.state;
    if (choice.bump) this.n++;
    if (choice.to !== undefined) {
      this.state = choice.to;
      this.deadlines = this.enter(choice.to, at);
    }
    const to = this.state;
    this.history.push({ from: stateName(from), to: stateName(to), event: eventName(event), at });
  }

  fireDue(now: number): void {
    for (let due = this.deadlines[0]; due !== undefined && due.at <= now; due = this.deadlines[0]) {
      const choice = this.choose(due.event);
      if ('code' in choice || choice.to === undefined) this.deadlines = this.deadlines.slice(1);
      if (!('code' in choice)) this.take(choice, due.event, due.at);
    }
  }

  send(event: number | undefined, now: number): { ok: true; from: string; to: string } | { code: string } {
    this.fireDue(now);
    if (event === undefined) return { code: this.final ? 'machine_done' : 'unknown_event' };
    const from = stateName(this.state);
    const choice = this.choose(event);
    if ('code' in choice) return choice;
    this.take(choice, event, now);
    return { ok: true, from, to: stateName(this.state) };
  }
}

type Op =
  | { readonly type: 'send'; readonly event: number | undefined }
  | { readonly type: 'advance'; readonly ms: number }
  | { readonly type: 'restore'; readonly gapMs: number };

const ops = (events: number): fc.Arbitrary<Op[]> =>
  fc.array(
    fc.oneof(
      {
        weight: 5,
        arbitrary: fc.record({
          type: fc.constant('send' as const),
          event: fc.option(fc.nat(events - 1), { nil: undefined, freq: 8 }),
        }),
      },
      {
        weight: 3,
        arbitrary: fc.record({
          type: fc.constant('advance' as const),
          ms: fc.integer({ min: 0, max: 3_000 }),
        }),
      },
      {
        weight: 1,
        arbitrary: fc.record({
          type: fc.constant('restore' as const),
          gapMs: fc.integer({ min: 0, max: 3_000 }),
        }),
      },
    ),
    { maxLength: 40 },
  );

const scenario = specArbitrary().chain((spec) => fc.tuple(fc.constant(spec), ops(spec.events)));

function outcome(
  result: SendResult<string, string>,
): { ok: true; from: string; to: string } | { code: string } {
  return result.ok ? { ok: true, from: result.from, to: result.to } : { code: result.code };
}

function expectSame(actor: Actor<string, string, Ctx>, model: Reference): void {
  expect(actor.state).toBe(stateName(model.state));
  expect(actor.context.n).toBe(model.n);
  expect(actor.done).toBe(model.final);
  expect(actor.deadlines).toEqual(model.deadlines.map((d) => ({ at: d.at, event: eventName(d.event) })));
  expect(actor.history).toEqual(model.history);
}

describe('fsm actors against a reference interpreter', () => {
  test.prop([scenario], { numRuns: runs(200) })(
    `${cite('SETTLE-01', 'SETTLE-02')} agree with the model, the pure transition and their own restored snapshots`,
    ([spec, steps]) => {
      const machine = build(spec);
      const clock = createManualClock({ now: 1_000 });
      const historyLimit = 100_000;
      let actor = createActor(machine, { clock, historyLimit });
      const model = new Reference(spec, clock.now());
      let base: MachineSnapshot<string, Ctx> = actor.snapshot();
      let doneEvents = 0;
      const watch = (a: Actor<string, string, Ctx>): void => {
        a.on('done', () => doneEvents++);
      };
      watch(actor);
      for (const step of steps) {
        if (step.type === 'advance') {
          clock.advance(step.ms);
        } else if (step.type === 'send') {
          const name = step.event === undefined ? UNKNOWN_EVENT : eventName(step.event);
          const pure = machine.transition(base, name, { at: clock.now() });
          const wasDone = model.final;
          const expected = model.send(step.event, clock.now());
          const result = outcome(actor.send(name));
          expect(result).toEqual(expected);
          expect(outcome(pure)).toEqual(expected);
          if (wasDone) expect(result).toEqual({ code: 'machine_done' }); // a final state absorbs everything
          if (pure.ok) {
            expect(pure.snapshot.state).toBe(actor.state);
            expect(pure.snapshot.context).toEqual(actor.context);
            expect(pure.snapshot.deadlines).toEqual(actor.deadlines);
          }
        } else {
          const saved = JSON.parse(JSON.stringify(actor.snapshot())) as unknown;
          const old = actor;
          old.close();
          expect(clock.pendingTimers()).toBe(0);
          clock.advance(step.gapMs); // the process is down: nothing fires
          actor = createActor(machine, { clock, historyLimit, snapshot: saved });
          watch(actor);
          expect(outcome(old.send(eventName(0)))).toEqual({ code: 'closed' });
        }
        model.fireDue(clock.now()); // what a restored or running actor owes by now
        expectSame(actor, model);
        expect(clock.pendingTimers()).toBe(model.deadlines.length === 0 ? 0 : 1);
        base = actor.snapshot();
      }
      // Each history entry follows a declared edge, and nothing leaves a final state.
      for (const entry of model.history) {
        const from = Number(entry.from.slice(1));
        expect((spec.states[from] as StateSpec).final).toBe(false);
      }
      expect(doneEvents).toBeLessThanOrEqual(1 + steps.filter((s) => s.type === 'restore').length);
      actor.close();
      expect(clock.pendingTimers()).toBe(0);
    },
    TIMEOUT_MS,
  );
});

describe('the request machine', () => {
  const events = ['approve', 'reject', 'expire', 'cancel', 'bogus'] as const;
  test.prop(
    [
      fc.array(fc.oneof(fc.constantFrom(...events), fc.integer({ min: 0, max: 20_000 })), { maxLength: 30 }),
      fc.boolean(),
    ],
    { numRuns: runs(300) },
  )(
    `${cite('SETTLE-01')} leaves pending at most once, and only through the first accepted event or its timeout`,
    (steps, restoreHalfway) => {
      const machine = defineRequestMachine({ timeoutMs: 10_000 });
      const clock = createManualClock({ now: 0 });
      let actor = createActor(machine, { clock, historyLimit: 100 });
      let settledBy: string | undefined;
      steps.forEach((step, i) => {
        if (restoreHalfway && i === Math.floor(steps.length / 2)) {
          const saved = JSON.parse(JSON.stringify(actor.snapshot())) as unknown;
          actor.close();
          actor = createActor(machine, { clock, snapshot: saved, historyLimit: 100 });
        }
        if (typeof step === 'number') {
          clock.advance(step);
          if (settledBy === undefined && clock.now() >= 10_000) settledBy = 'expire';
          return;
        }
        const result = actor.send(step as never);
        if (settledBy === undefined && step !== 'bogus') {
          expect(result.ok).toBe(true);
          settledBy = step;
        } else {
          expect(result).toMatchObject({
            ok: false,
            code: settledBy === undefined ? 'unknown_event' : 'machine_done',
          });
        }
      });
      expect(actor.history.length).toBe(settledBy === undefined ? 0 : 1);
      if (settledBy !== undefined) expect(actor.history[0]?.event).toBe(settledBy);
      expect(actor.done).toBe(settledBy !== undefined);
      expect(clock.pendingTimers()).toBe(settledBy === undefined ? 1 : 0);
    },
    TIMEOUT_MS,
  );
});
