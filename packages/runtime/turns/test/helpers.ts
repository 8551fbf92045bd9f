import type { Proposal } from '@parley/conflict';
import {
  createManualClock,
  createMemoryStore,
  createSequentialIds,
  type JsonValue,
  type ManualClock,
  type Store,
} from '@parley/core';
import { createToolGate, defineTool, type ToolExecuteContext } from '@parley/tools';
import { z } from 'zod';
import { createTurnRunner, type TurnRunnerOptions } from '../src/index.js';

export interface Game {
  readonly hp: number;
  readonly log: readonly string[];
}
export interface Input {
  readonly actor: string;
  readonly text: string;
}
export interface Record {
  readonly turn: number;
  readonly text: string;
}

/** A store that fails the operations a test names: `throw` rejects, `lose` loses a compare-and-set. */
export function createFaultyStore(inner: Store) {
  let rule: ((op: string, key: string) => 'throw' | 'lose' | 'after' | undefined) | undefined;
  const check = (op: string, key: string): 'lose' | 'after' | undefined => {
    const verdict = rule?.(op, key);
    if (verdict === 'throw') throw new Error(`store down (${op} ${key})`);
    return verdict;
  };
  const store: Store = {
    get: async (key) => {
      check('get', key);
      return inner.get(key);
    },
    getEntry: async (key) => {
      check('get', key);
      return inner.getEntry(key);
    },
    set: async (key, value, options) => {
      check('set', key);
      return inner.set(key, value, options);
    },
    delete: async (key) => {
      check('delete', key);
      return inner.delete(key);
    },
    compareAndSet: async (key, version, value, options) => {
      const verdict = check('cas', key);
      if (verdict === 'lose') return { ok: false, version: (await inner.getEntry(key))?.version ?? null };
      const result = await inner.compareAndSet(key, version, value, options);
      if (verdict === 'after') throw new Error(`connection lost after the write (${key})`);
      return result;
    },
    list: (prefix) => inner.list(prefix),
    close: () => inner.close(),
  };
  const fail = (next: typeof rule): void => {
    rule = next;
  };
  return { store, fail };
}

type Options = TurnRunnerOptions<Input, Game, Game, string, Record, Host, null, 'empty_input'>;

/** One process of a host: its in-memory state, a scripted model, a gate and a runner. */
export interface Host {
  state: Game;
  /** How many times a tool changed the state in this process. */
  effects: number;
  readonly replies: (Proposal | Error | (() => Promise<Proposal>))[];
  readonly requests: string[];
  readonly runner: ReturnType<
    typeof createTurnRunner<Input, Game, Game, string, Record, Host, null, 'empty_input'>
  >;
}

export const hit = (id: string, damage: number, text = `You lose ${damage} HP.`): Proposal => ({
  text,
  tool_calls: [{ id, tool: 'hit', args: { damage } }],
});

export function createHost(store: Store, clock: ManualClock, options: Partial<Options> = {}): Host {
  const hitTool = defineTool({
    name: 'hit',
    description: 'Deals damage',
    args: z.object({ damage: z.number().int() }),
    reasons: ['fatal'],
    execute: (args, { context, reject }: ToolExecuteContext<Host, 'fatal'>) => {
      if (args.damage > 1000) throw new Error('the dice exploded');
      if (args.damage >= context.state.hp) return reject('fatal', 'That would kill you');
      context.state = { ...context.state, hp: context.state.hp - args.damage };
      context.effects += 1;
      return context.state.hp;
    },
  });
  const gate = createToolGate({ tools: [hitTool], allowlist: ['hit'], clock });
  const host: Omit<Host, 'runner'> & { runner?: Host['runner'] } = {
    state: { hp: 20, log: [] },
    effects: 0,
    replies: [],
    requests: [],
  };
  const self = host as Host;
  host.runner = createTurnRunner<Input, Game, Game, string, Record, Host, null, 'empty_input'>({
    store,
    keyPrefix: 'game:',
    clock,
    generateTurnId: createSequentialIds('turn_'),
    gate,
    capture: () => self.state,
    restore: (state) => {
      self.state = structuredClone(state);
    },
    accept: (input) => (input.text === '' ? { code: 'empty_input', message: 'Say something' } : undefined),
    prepare: (turn) => ({
      request: `${turn.input.actor}: ${turn.input.text}`,
      generate: async (request) => {
        self.requests.push(request.input);
        const reply = self.replies.shift();
        if (reply === undefined) throw new Error('no scripted reply');
        if (reply instanceof Error) throw reply;
        return typeof reply === 'function' ? reply() : reply;
      },
      readState: () => self.state,
      context: self,
      data: null,
    }),
    complete: (turn, outcome) => {
      const text = outcome.ok ? outcome.output.text : `report: ${outcome.code}`;
      self.state = { ...self.state, log: [...self.state.log, `${turn.turnId}: ${turn.input.text}`] };
      return { turn: turn.turn, text };
    },
    ...options,
  });
  return self;
}

export function setup(options: Partial<Options> = {}) {
  const clock = createManualClock({ now: 1_000 });
  const memory = createMemoryStore({ clock });
  const faulty = createFaultyStore(memory);
  const host = createHost(faulty.store, clock, options);
  return { clock, memory, faulty, host, store: faulty.store };
}

export const say = (text: string): Input => ({ actor: 'aria', text });

export async function stored(store: Store, key: string): Promise<JsonValue | undefined> {
  return store.get(key);
}

/** A promise and its resolver, to hold a model call open while the test acts. */
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
