// Two hosts (replicas) on one store, and writes failing in a row: issue 31, reproductions 4, 6, 7 and 8.
import { createManualClock, createMemoryStore, createSequentialIds, isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import type { Proposal } from '@parley/conflict';
import { createFaultyStore, createHost, deferred, hit, say } from './helpers.js';

function world() {
  const clock = createManualClock({ now: 1_000 });
  return { clock, memory: createMemoryStore({ clock }) };
}

describe('two hosts on one store', () => {
  it('starts every turn from the committed head, so neither host loses the other’s turn (4)', async () => {
    const { clock, memory } = world();
    const a = createHost(memory, clock);
    const b = createHost(memory, clock, { generateTurnId: createSequentialIds('b_turn_') });
    await a.runner.open();
    await b.runner.open();
    a.replies.push(hit('c1', 7));
    expect(await a.runner.run(say('Strike'))).toMatchObject({ ok: true, turn: 1 });
    b.replies.push(hit('c2', 2));
    expect(await b.runner.run(say('Block'))).toMatchObject({ ok: true, turn: 2 });
    expect(b.state.hp).toBe(11);
    const c = createHost(memory, clock);
    await c.runner.open();
    expect(c.state.hp).toBe(11);
    expect(c.state.log).toEqual(['turn_1: Strike', 'b_turn_1: Block']);
  });

  it('refuses a turn as busy while another host’s turn holds the head', async () => {
    const { clock, memory } = world();
    const a = createHost(memory, clock);
    const b = createHost(memory, clock);
    await a.runner.open();
    await b.runner.open();
    const reply = deferred<Proposal>();
    a.replies.push(() => reply.promise);
    const started = new Promise((resolve) => a.runner.on('started', resolve));
    const running = a.runner.run(say('Wait'));
    await started;
    b.replies.push(hit('c2', 1));
    expect(await b.runner.run(say('Now'))).toMatchObject({ ok: false, code: 'busy' });
    expect(await b.runner.rollback('turn_0')).toMatchObject({ ok: false, code: 'busy' });
    reply.resolve(hit('c1', 1));
    expect(await running).toMatchObject({ ok: true });
  });
});

describe('a submission key and failing writes', () => {
  it('remembers a settled key when every write but the head fails for several turns in a row (6)', async () => {
    const { clock, memory } = world();
    const faulty = createFaultyStore(memory);
    const a = createHost(faulty.store, clock);
    await a.runner.open();
    faulty.fail((op, key) => (op !== 'get' && !key.endsWith('turns:head') ? 'throw' : undefined));
    a.replies.push(hit('c1', 3), hit('c2', 4), hit('c3', 5));
    expect(await a.runner.run(say('One'), { key: 'msg_1' })).toMatchObject({ ok: true, turn: 1 });
    expect(await a.runner.run(say('Two'), { key: 'msg_2' })).toMatchObject({ ok: true, turn: 2 });
    expect(await a.runner.run(say('Three'), { key: 'msg_3' })).toMatchObject({ ok: true, turn: 3 });
    faulty.fail(undefined);
    const b = createHost(memory, clock);
    await b.runner.open();
    expect(await b.runner.run(say('One'), { key: 'msg_1' })).toMatchObject({
      ok: true,
      replayed: true,
      turn: 1,
    });
    expect(b.effects).toBe(0);
    expect(b.state.hp).toBe(8);
  });
});

describe('rollback and undo across replicas', () => {
  it('never leaves two branches in one log when an undo races a new command on another host (7)', async () => {
    const { clock, memory } = world();
    const a = createHost(memory, clock);
    const b = createHost(memory, clock, { generateTurnId: createSequentialIds('b_turn_') });
    await a.runner.open();
    await b.runner.open();
    a.replies.push(hit('c1', 3), hit('c2', 4));
    await a.runner.run(say('One'));
    await a.runner.run(say('Two'));
    expect(await a.runner.rollback('turn_1')).toMatchObject({ ok: true });
    b.replies.push(hit('c3', 1));
    const [undone, ran] = await Promise.all([a.runner.undo(), b.runner.run(say('Other'))]);
    expect([undone.ok, ran.ok]).toContain(true);
    const log = await a.runner.log();
    const ids = log.ok ? log.checkpoints.map((c) => c.id) : [];
    expect(ids.includes('turn_2') && ids.includes('b_turn_1')).toBe(false);
    const c = createHost(memory, clock);
    await c.runner.open();
    expect(c.state.hp).toBe(ids.includes('turn_2') ? 13 : 16);
  });

  it('leaves the log, the head and the host as they were when restore throws during a rollback (8)', async () => {
    const { clock, memory } = world();
    let broken = false;
    const a = createHost(memory, clock, {
      restore: (state) => {
        if (broken) throw new Error('restore broke');
        a.state = structuredClone(state);
      },
    });
    await a.runner.open();
    a.replies.push(hit('c1', 3));
    await a.runner.run(say('One'));
    broken = true;
    await expect(a.runner.rollback('turn_0')).rejects.toThrow('restore broke');
    broken = false;
    const log = await a.runner.log();
    expect(log.ok && log.rollback).toBeNull();
    expect(a.state.hp).toBe(17);
    a.replies.push(hit('c2', 2));
    expect(await a.runner.run(say('Two'))).toMatchObject({ ok: true, turn: 2 });
    expect(a.state.hp).toBe(15);
    const after = await a.runner.log();
    expect(after.ok && after.checkpoints.map((cp) => cp.id)).toEqual(['turn_0', 'turn_1', 'turn_2']);
  });

  it('refuses to open over a head of the format before the kernel with corrupt_record, never overwriting it', async () => {
    const { clock, memory } = world();
    const old = {
      kind: 'parley.turns.head',
      turn: 0,
      turnId: 'turn_0',
      state: {},
      gate: {},
      open: null,
      last: null,
    };
    await memory.set('game:turns:head', old);
    const err = await createHost(memory, clock)
      .runner.open()
      .catch((e: unknown) => e);
    expect(isParleyError(err, 'corrupt_record')).toBe(true);
    expect(await memory.get('game:turns:head')).toEqual(old);
  });

  it('refuses a head of another record version with record_version', async () => {
    const { clock, memory } = world();
    const next = { kind: 'parley.turns.head', version: 3, data: {}, lease: null, fence: 0, deadlineAt: null };
    await memory.set('game:turns:head', next);
    const err = await createHost(memory, clock)
      .runner.open()
      .catch((e: unknown) => e);
    expect(isParleyError(err, 'record_version')).toBe(true);
  });
});
