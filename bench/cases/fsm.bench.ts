import { createActor, defineMachine } from '@parley/fsm';
import { createActor as createXStateActor, createMachine } from 'xstate';
import { suite } from '../lib.js';

// A 9-state linear flow (the cleanup flow's shape), driven through every state and reset.
const STEPS = [
  'goal',
  'scope',
  'auth',
  'evidence',
  'confirm',
  'export',
  'execute',
  'notify',
  'close',
] as const;

const parleyMachine = defineMachine({
  id: 'linear',
  version: 1,
  initial: 'goal',
  context: {},
  states: {
    goal: { on: { next: 'scope' } },
    scope: { on: { next: 'auth' } },
    auth: { on: { next: 'evidence' } },
    evidence: { on: { next: 'confirm' } },
    confirm: { on: { next: 'export' } },
    export: { on: { next: 'execute' } },
    execute: { on: { next: 'notify' } },
    notify: { on: { next: 'close' } },
    close: { on: { next: 'goal' } },
  },
});

const xstateMachine = createMachine({
  id: 'linear',
  initial: 'goal',
  states: Object.fromEntries(STEPS.map((s, i) => [s, { on: { next: STEPS[(i + 1) % STEPS.length] } }])),
});

// The hand-written baseline: state name → event name → next state name.
const table: Record<string, Record<string, string>> = {};
STEPS.forEach((s, i) => {
  table[s] = { next: STEPS[(i + 1) % STEPS.length] as string };
});

suite('fsm: one transition (9-state linear flow, cycled)', {
  cases: {
    // The default actor: no history, no timeouts in this machine, no listener, so no clock read.
    'parley actor.send': () => {
      const actor = createActor(parleyMachine);
      return () => actor.send('next');
    },
    // With a history of 100 entries, each stamped with the clock's time of its transition.
    'parley send, historyLimit 100': () => {
      const actor = createActor(parleyMachine, { historyLimit: 100 });
      return () => actor.send('next');
    },
    // What the one clock read of a default send costs on this machine, for reading the ratios.
    'Date.now() alone': () => () => Date.now(),
    'xstate actor.send': () => {
      const actor = createXStateActor(xstateMachine).start();
      return () => actor.send({ type: 'next' });
    },
    'lookup table': () => {
      let state = 'goal';
      const event: string = 'next';
      return () => {
        state = (table[state] as Record<string, string>)[event] as string;
        return state;
      };
    },
  },
  goals: [
    { case: 'parley actor.send', vs: 'xstate actor.send', fasterBy: 50 },
    { case: 'parley actor.send', vs: 'lookup table', slowerByAtMost: 4 },
    { case: 'parley send, historyLimit 100', vs: 'lookup table' },
  ],
});

suite('fsm: start a new instance', {
  cases: {
    'parley createActor': () => () => createActor(parleyMachine),
    'xstate createActor().start().stop()': () => () => createXStateActor(xstateMachine).start().stop(),
  },
  goals: [{ case: 'parley createActor', vs: 'xstate createActor().start().stop()', fasterBy: 50 }],
});

suite('fsm: retained heap per live instance', {
  kind: 'memory',
  instances: 50_000,
  cases: {
    'parley createActor': () => createActor(parleyMachine),
    'xstate createActor().start()': () => createXStateActor(xstateMachine).start(),
  },
  goals: [{ case: 'parley createActor', vs: 'xstate createActor().start()', maxBytes: 500 }],
});
