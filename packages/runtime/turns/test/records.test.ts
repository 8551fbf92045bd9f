// The head as a kernel record: what the runner refuses to read, the journal's bounds, and a store
// that fails while the head's lease is taken.
import { isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { hit, say, setup } from './helpers.js';

describe('the head record', () => {
  it('refuses a head whose data is not a runner head with corrupt_record', async () => {
    const env = setup();
    const data = { turn: 0, turnId: 'turn_0', state: {}, gate: {}, open: 'x', last: null, journal: [] };
    await env.memory.set('game:turns:head', {
      kind: 'parley.turns.head',
      version: 2,
      data,
      lease: null,
      fence: 0,
      deadlineAt: null,
    });
    const err = await env.host.runner.open().catch((e: unknown) => e);
    expect(isParleyError(err, 'corrupt_record')).toBe(true);
  });

  it('rejects store_failed when the store fails to read the head or to take its lease', async () => {
    const env = setup();
    await env.host.runner.open();
    env.faulty.fail((op, key) => (op === 'get' && key === 'game:turns:head' ? 'throw' : undefined));
    const err = await env.host.runner.run(say('Hi')).catch((e: unknown) => e);
    expect(isParleyError(err, 'store_failed')).toBe(true);
    const again = await env.host.runner.run(say('Hi'), { key: 'k1' }).catch((e: unknown) => e);
    expect(isParleyError(again, 'store_failed')).toBe(true);
  });
});

describe('the journal of settled keys', () => {
  it('forgets a key once it is older than journalTtlMs, and runs it again', async () => {
    const env = setup({ journalTtlMs: 1_000 });
    await env.host.runner.open();
    env.host.replies.push(hit('c1', 1), { text: 'b' }, hit('c3', 1));
    await env.host.runner.run(say('One'), { key: 'msg_1' });
    env.clock.advance(1_000);
    await env.host.runner.run(say('Two'), { key: 'msg_2' });
    expect(await env.host.runner.run(say('One'), { key: 'msg_1' })).toMatchObject({
      ok: true,
      replayed: false,
    });
  });

  it('fails a turn whose key and record cannot fit in the journal, committing nothing', async () => {
    const env = setup({ complete: (turn) => ({ turn: turn.turn, text: 'x'.repeat(300_000) }) });
    await env.host.runner.open();
    env.host.replies.push(hit('c1', 3));
    const err = await env.host.runner.run(say('Big'), { key: 'msg_1' }).catch((e: unknown) => e);
    expect(isParleyError(err, 'turn_failed')).toBe(true);
    expect(env.host.state.hp).toBe(20);
    expect(await env.memory.get('game:turns:head')).toMatchObject({
      data: { turn: 0, journal: [] },
      lease: null,
    });
  });
});

describe('a refused rollback', () => {
  it('puts the host back when the log refuses the rollback after the kept state was restored', async () => {
    const env = setup();
    await env.host.runner.open();
    env.host.replies.push(hit('c1', 3));
    await env.host.runner.run(say('One'));
    expect(await env.host.runner.rollback('turn_1')).toMatchObject({ ok: false, code: 'not_earlier' });
    expect(env.host.state.hp).toBe(17);
    expect(await env.host.runner.rollback('turn_9')).toMatchObject({ ok: false, code: 'no_checkpoint' });
  });
});

describe('the store work of a turn', () => {
  it('writes the head twice per turn (the lease with the open turn, the commit) and reads it not at all while it holds the last commit', async () => {
    const env = setup();
    await env.host.runner.open();
    env.host.replies.push(hit('c1', 1), hit('c1', 1));
    await env.host.runner.run(say('warm up'));
    const ops: string[] = [];
    env.faulty.fail((op, key) => {
      ops.push(`${op} ${key}`);
      return undefined;
    });
    const result = await env.host.runner.run(say('I attack'));
    expect(result.ok).toBe(true);
    const head = ops.filter((op) => op.endsWith('game:turns:head'));
    expect(head).toEqual(['cas game:turns:head', 'cas game:turns:head']);
    // the log is read once, by commit(), and written once: take() starts from the log commit() read,
    // and its compare-and-set lands only on that log
    const log = ops.filter((op) => op.endsWith('game:checkpoints'));
    expect(log).toEqual(['get game:checkpoints', 'cas game:checkpoints']);
  });

  it('takes the lease and marks the turn open in one write when a checkpoint is owed and the catch-up leaves the head', async () => {
    const env = setup();
    await env.host.runner.open();
    env.host.replies.push(hit('c1', 1), hit('c2', 1));
    // the turn commits, its checkpoint's snapshot fails: the next turn owes it
    env.faulty.fail((op, key) => (op === 'set' && key.startsWith('game:checkpoint:') ? 'throw' : undefined));
    expect(await env.host.runner.run(say('One'))).toMatchObject({ ok: true, checkpoint: { ok: false } });
    const ops: string[] = [];
    env.faulty.fail((op, key) => {
      ops.push(`${op} ${key}`);
      return undefined;
    });
    const open: (string | undefined)[] = [];
    const recovered: string[] = [];
    env.host.runner.on('recovered', (e) => recovered.push(`${e.action} ${e.turnId}`));
    env.host.runner.on('started', () => {
      void env.memory.get('game:turns:head').then((head) => {
        open.push((head as { data: { open: { turnId: string } | null } }).data.open?.turnId);
      });
    });
    expect(await env.host.runner.run(say('Two'))).toMatchObject({ ok: true, turn: 2, turnId: 'turn_2' });
    expect(ops.filter((op) => op.endsWith('game:turns:head'))).toEqual([
      'cas game:turns:head',
      'cas game:turns:head',
    ]);
    expect(open).toEqual(['turn_2']);
    expect(recovered).toEqual(['checkpoint turn_1']);
    const log = await env.host.runner.log();
    expect(log.ok && log.checkpoints.map((c) => c.id)).toEqual(['turn_0', 'turn_1', 'turn_2']);
  });

  it("refuses an input the host's accept hook refuses before taking the lease: nothing is written", async () => {
    const env = setup({
      accept: (input) => (input.text === '' ? { code: 'empty_input', message: 'Say more' } : undefined),
    });
    await env.host.runner.open();
    const ops: string[] = [];
    env.faulty.fail((op, key) => {
      ops.push(`${op} ${key}`);
      return undefined;
    });
    expect(await env.host.runner.run(say(''))).toMatchObject({ ok: false, code: 'empty_input' });
    expect(ops).toEqual([]);
  });

  it('reads the head to take its lease when another writer moved it since the last commit', async () => {
    const env = setup();
    await env.host.runner.open();
    env.host.replies.push(hit('c1', 1), hit('c1', 1));
    await env.host.runner.run(say('warm up'));
    const entry = await env.memory.getEntry('game:turns:head');
    await env.memory.set('game:turns:head', entry?.value ?? null); // same content, a new version
    const ops: string[] = [];
    env.faulty.fail((op, key) => {
      ops.push(`${op} ${key}`);
      return undefined;
    });
    expect((await env.host.runner.run(say('I attack'))).ok).toBe(true);
    const head = ops.filter((op) => op.endsWith('game:turns:head'));
    // the lease's write on the held head loses, the head is read, and the lease lands on it
    expect(head.slice(0, 3)).toEqual(['cas game:turns:head', 'get game:turns:head', 'cas game:turns:head']);
  });

  it("keeps the head's own copy of a turn's record: changing the returned record changes nothing stored", async () => {
    const env = setup();
    await env.host.runner.open();
    env.host.replies.push(hit('c1', 1), hit('c1', 1));
    const first = await env.host.runner.run(say('One'), { key: 'k1' });
    if (!first.ok || first.replayed) throw new Error('not run');
    const committed = structuredClone(first.record);
    (first.record as { text: string }).text = 'changed by the caller';
    expect((await env.host.runner.run(say('Two'))).ok).toBe(true); // a turn on the held head
    const again = await env.host.runner.run(say('One'), { key: 'k1' });
    expect(again).toMatchObject({ ok: true, replayed: true, record: committed });
  });

  it('commits a turn whose head was moved while it ran only after reading it again, never over it', async () => {
    const env = setup();
    await env.host.runner.open();
    let moved = false;
    env.host.replies.push(async () => {
      // another writer changes the stored head (bypassing the lease) while the model answers
      const entry = await env.memory.getEntry('game:turns:head');
      await env.memory.set('game:turns:head', entry?.value ?? null);
      moved = true;
      return hit('c1', 1);
    });
    const result = await env.host.runner.run(say('I attack'));
    expect(moved).toBe(true);
    expect(result.ok).toBe(true);
    const head = (await env.memory.get('game:turns:head')) as { data: { turn: number } };
    expect(head.data.turn).toBe(1);
  });
});
