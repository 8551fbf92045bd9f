// The restart promises on more than the in-memory store: the same scenarios over the Postgres
// Store on an embedded PGlite. A process dies before its commit, or after it; a new process on the
// same Store carries on, and a resent submission is applied once.
import { PGlite } from '@electric-sql/pglite';
import { createManualClock, createMemoryStore, type ManualClock, type Store } from '@parley/core';
import { createPostgresStore } from '@parley/postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TURN_TIMEOUT_MS } from '../src/index.js';
import { createFaultyStore, createHost, hit, say } from './helpers.js';

let pglite: PGlite;
let schemas = 0;
const opened: Store[] = [];
beforeAll(async () => {
  pglite = new PGlite();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});
afterAll(async () => {
  await pglite.close();
});

const STORES: readonly [string, (clock: ManualClock) => Store][] = [
  ['the in-memory store', (clock) => createMemoryStore({ clock })],
  [
    'the Postgres store on PGlite',
    (clock) => {
      const store = createPostgresStore({ db: pglite, clock, schema: `turns_${++schemas}` });
      opened.push(store);
      return store;
    },
  ],
];

describe.each(STORES)('a restart over %s', (_name, open) => {
  it('drops a turn that died before its commit, and applies it once when resent', async () => {
    const clock = createManualClock({ now: 1_000 });
    const store = open(clock);
    const faulty = createFaultyStore(store);
    const first = createHost(faulty.store, clock);
    await first.runner.open();
    first.replies.push(async () => {
      faulty.fail(() => 'throw'); // the process loses its store: the commit never lands
      return hit('c1', 3);
    });
    await expect(first.runner.run(say('Attack'), { key: 'msg_1' })).rejects.toThrow();

    clock.advance(DEFAULT_TURN_TIMEOUT_MS);
    const second = createHost(store, clock);
    expect(await second.runner.open()).toMatchObject({ resumed: true, turn: 0, abandoned: 'turn_1' });
    second.replies.push(hit('c1', 3));
    expect(await second.runner.run(say('Attack'), { key: 'msg_1' })).toMatchObject({ ok: true, turn: 1 });
    expect(await second.runner.run(say('Attack'), { key: 'msg_1' })).toMatchObject({ replayed: true });
    expect([second.effects, second.state.hp]).toEqual([1, 17]);
  });

  it('keeps a turn that died after its commit, with its key in the head, and catches up its checkpoint', async () => {
    const clock = createManualClock({ now: 1_000 });
    const store = open(clock);
    const faulty = createFaultyStore(store);
    const first = createHost(faulty.store, clock);
    await first.runner.open();
    faulty.fail((op, key) => (op === 'set' && key !== 'game:turns:head' ? 'throw' : undefined));
    first.replies.push(hit('c1', 3));
    expect(await first.runner.run(say('Attack'), { key: 'msg_1' })).toMatchObject({ ok: true });

    const second = createHost(store, clock);
    const recovered: string[] = [];
    second.runner.on('recovered', (e) => recovered.push(e.action));
    expect(await second.runner.open()).toMatchObject({ resumed: true, turn: 1 });
    expect(recovered).toEqual(['checkpoint']);
    expect(await second.runner.run(say('Attack'), { key: 'msg_1' })).toMatchObject({ replayed: true });
    expect([second.effects, second.state.hp]).toEqual([0, 17]);
    expect(await second.runner.rollback('turn_0')).toMatchObject({ ok: true });
    expect(second.state.hp).toBe(20);
  });
});
