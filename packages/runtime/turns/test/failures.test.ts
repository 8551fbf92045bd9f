import { isParleyError } from '@parley/core';
import { afterEach, describe, expect, it } from 'vitest';
import { TurnsError, type TurnRunnerEvents } from '../src/index.js';
import { createHost, hit, say, setup } from './helpers.js';

let env: ReturnType<typeof setup>;
afterEach(() => {
  expect(env.clock.pendingTimers()).toBe(0);
});

async function opened(options: Parameters<typeof setup>[0] = {}) {
  env = setup(options);
  await env.host.runner.open();
  return env;
}

async function rejection(promise: Promise<unknown>): Promise<TurnsError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof TurnsError)) throw new Error(`expected a TurnsError, got ${String(err)}`);
  return err;
}

describe('the model or a tool fails', () => {
  it('commits a conflict report when the model throws again after its retry', async () => {
    const { host } = await opened();
    host.replies.push(new Error('model down'), new Error('model down'));
    const result = await host.runner.run(say('Hello'));
    expect(result.ok && result.record).toEqual({ turn: 1, text: 'report: generator_failed' });
    expect(host.state.log).toEqual(['turn_1: Hello']);
  });

  it('feeds a tool that throws back as an error call and commits the retry', async () => {
    const { host } = await opened();
    host.replies.push(hit('c1', 5000), hit('c2', 2));
    const result = await host.runner.run(say('Roll'));
    expect(result.ok && !result.replayed && result.outcome.attempts.length).toBe(2);
    expect(host.state.hp).toBe(18);
  });
});

describe('a turn that throws', () => {
  it('puts the committed state back, releases the runner and rejects with turn_failed', async () => {
    const { host } = await opened({
      complete: () => {
        throw new Error('summary broke');
      },
    });
    const failed: TurnRunnerEvents['failed'][] = [];
    host.runner.on('failed', (e) => failed.push(e));
    host.replies.push(hit('c1', 3));
    const err = await rejection(host.runner.run(say('Attack'), { key: 'msg_1' }));
    expect([err.code, err.details]).toEqual(['turn_failed', { turnId: 'turn_1', key: 'msg_1' }]);
    expect((err.cause as Error).message).toBe('summary broke');
    expect(host.state).toEqual({ hp: 20, log: [] });
    expect(failed).toEqual([{ turnId: 'turn_1', key: 'msg_1', message: 'summary broke' }]);
    expect(await env.store.get('game:turns:head')).toMatchObject({ data: { turn: 0 }, lease: null });
  });

  it('puts back the state from before the turn, with changes the host made between turns', async () => {
    const { host } = await opened({
      complete: () => {
        throw new Error('broke');
      },
    });
    host.state = { ...host.state, hp: 15 };
    host.replies.push(hit('c1', 3));
    await rejection(host.runner.run(say('Attack')));
    expect(host.state).toEqual({ hp: 15, log: [] });
  });

  it('runs a failed submission again when it is retried, and applies its effect once', async () => {
    let broken = true;
    const { host } = await opened({
      complete: (turn) => {
        if (broken) throw new Error('once');
        return { turn: turn.turn, text: 'ok' };
      },
    });
    host.replies.push(hit('c1', 3));
    await rejection(host.runner.run(say('Attack'), { key: 'msg_1' }));
    broken = false;
    host.replies.push(hit('c1', 3));
    expect(await host.runner.run(say('Attack'), { key: 'msg_1' })).toMatchObject({ ok: true, turn: 1 });
    expect(host.state.hp).toBe(17);
    expect(await host.runner.run(say('Attack'), { key: 'msg_1' })).toMatchObject({ replayed: true });
    expect(host.state.hp).toBe(17);
  });

  it('fails the turn when the signal aborts the loop', async () => {
    const { host } = await opened();
    const controller = new AbortController();
    controller.abort(new Error('player left'));
    host.replies.push({ text: 'never' });
    const err = await rejection(host.runner.run(say('Hi'), { signal: controller.signal }));
    expect(isParleyError(err.cause, 'cancelled')).toBe(true);
  });

  it('fails the turn when prepare throws, before the model is called', async () => {
    const { host } = await opened({
      prepare: () => {
        throw 'no context';
      },
    });
    const err = await rejection(host.runner.run(say('Hi')));
    expect(err.message).toContain('no context');
    expect(host.requests).toEqual([]);
  });
});

describe('the store fails or another writer wins', () => {
  it('refuses conflict and applies nothing when another process took the head over while the turn ran', async () => {
    const { host, memory, clock } = await opened();
    const other = createHost(memory, clock);
    host.replies.push(async () => {
      await other.runner.open({ takeOver: true }); // an operator takes over: the turn's lease is fenced off
      return hit('c1', 3);
    });
    expect(await host.runner.run(say('Attack'))).toMatchObject({ ok: false, code: 'conflict' });
    expect(host.state).toEqual({ hp: 20, log: [] });
    host.replies.push(hit('c2', 1));
    expect(await host.runner.run(say('Again'))).toMatchObject({ ok: true, turn: 1 });
  });

  it('refuses busy when another process takes the lease first', async () => {
    const { host, faulty } = await opened();
    faulty.fail((op, key) => (op === 'cas' && key === 'game:turns:head' ? 'lose' : undefined));
    expect(await host.runner.run(say('Attack'))).toMatchObject({ ok: false, code: 'busy' });
    expect(host.requests).toEqual([]);
  });

  it('rejects turn_failed when the commit write throws, and recovers once the store is back', async () => {
    const { host, faulty } = await opened();
    let cas = 0;
    faulty.fail((op, key) => {
      if (key !== 'game:turns:head') return undefined;
      if (op === 'cas') cas += 1;
      return cas >= 2 ? 'throw' : undefined; // the lease with the open turn, then the commit throws, and every read of the head
    });
    host.replies.push(hit('c1', 3));
    const err = await rejection(host.runner.run(say('Attack'), { key: 'msg_1' }));
    expect(err.code).toBe('turn_failed');
    expect(host.state.hp).toBe(20); // the state from before the turn: the next turn starts from the head anyway
    faulty.fail(undefined);
    host.replies.push(hit('c1', 3));
    const again = await host.runner.run(say('Attack'), { key: 'msg_1' });
    expect(again).toMatchObject({ ok: true, turn: 1 });
    expect(host.state.hp).toBe(17);
  });

  it('reports a failed checkpoint, keeps the turn, and takes it before the next turn', async () => {
    const { host, faulty } = await opened();
    faulty.fail((op, key) =>
      op === 'set' && key.startsWith('game:checkpoint:turn_1:') ? 'throw' : undefined,
    );
    const failed: string[] = [];
    host.runner.on('checkpoint-failed', (e) => {
      expect(e.reason).toBe(e.message);
      failed.push(`${e.turnId} ${e.code}`);
    });
    host.replies.push(hit('c1', 3));
    const result = await host.runner.run(say('Attack'));
    expect(result).toMatchObject({ ok: true, checkpoint: { ok: false, code: 'failed' } });
    expect(failed).toEqual(['turn_1 failed']);
    faulty.fail(undefined);
    const recovered: string[] = [];
    host.runner.on('recovered', (e) => recovered.push(`${e.action} ${e.turnId}`));
    host.replies.push({ text: 'b' });
    await host.runner.run(say('Look'));
    expect(recovered).toEqual(['checkpoint turn_1']);
    expect(await host.runner.rollback('turn_1')).toMatchObject({ ok: true, state: { state: { hp: 17 } } });
  });

  it('reports a checkpoint refused by the log (a lost race) as checkpoint-failed', async () => {
    const { host, faulty } = await opened();
    faulty.fail((op, key) => (op === 'cas' && key === 'game:checkpoints' ? 'lose' : undefined));
    const failed: string[] = [];
    host.runner.on('checkpoint-failed', (e) => {
      expect(e.reason).toBe(e.message);
      failed.push(`${e.turnId} ${e.code}`);
    });
    host.replies.push({ text: 'a' });
    expect(await host.runner.run(say('Look'))).toMatchObject({ ok: true, checkpoint: { code: 'conflict' } });
    expect(failed).toEqual(['turn_1 conflict']);
  });

  it('rejects turn_failed when the store commits but reports an error; a retry replays the turn', async () => {
    const { host, faulty } = await opened();
    let cas = 0;
    faulty.fail((op, key) => {
      if (op !== 'cas' || key !== 'game:turns:head') return undefined;
      cas += 1;
      return cas === 2 ? 'after' : undefined; // the lease with the open turn, then the commit
    });
    host.replies.push(hit('c1', 3));
    const err = await rejection(host.runner.run(say('Attack'), { key: 'msg_1' }));
    expect(err.code).toBe('turn_failed');
    expect(host.state.hp).toBe(17); // the committed present
    expect(await host.runner.run(say('Attack'), { key: 'msg_1' })).toMatchObject({ replayed: true });
    expect(host.effects).toBe(1);
  });

  it('leaves no open turn behind when a turn fails before it starts (the checkpoint log unreadable)', async () => {
    const { host, faulty, memory } = await opened();
    let reads = 0;
    faulty.fail((op, key) =>
      op === 'get' && key === 'game:checkpoints' && reads++ === 0 ? 'throw' : undefined,
    );
    const started: string[] = [];
    const recovered: string[] = [];
    host.runner.on('started', (e) => started.push(e.turnId));
    host.runner.on('recovered', (e) => recovered.push(`${e.action} ${e.turnId}`));
    await expect(host.runner.run(say('Attack'))).rejects.toThrow();
    expect(started).toEqual([]);
    expect(await memory.get('game:turns:head')).toMatchObject({ data: { turn: 0, open: null }, lease: null });
    host.replies.push(hit('c1', 3));
    expect(await host.runner.run(say('Attack'))).toMatchObject({ ok: true, turn: 1 });
    expect(recovered).toEqual([]);
  });

  it('takes the open turn back when the catch-up of an owed checkpoint fails after the lease marked it', async () => {
    const { host, faulty, memory } = await opened();
    faulty.fail((op, key) => (op === 'set' && key.startsWith('game:checkpoint:') ? 'throw' : undefined));
    host.replies.push(hit('c1', 3));
    expect(await host.runner.run(say('One'))).toMatchObject({ ok: true, checkpoint: { ok: false } });
    faulty.fail((op, key) => (op === 'get' && key === 'game:checkpoints' ? 'throw' : undefined));
    const recovered: string[] = [];
    host.runner.on('recovered', (e) => recovered.push(`${e.action} ${e.turnId}`));
    await expect(host.runner.run(say('Two'))).rejects.toThrow();
    expect(await memory.get('game:turns:head')).toMatchObject({ data: { turn: 1, open: null }, lease: null });
    faulty.fail(() => undefined);
    host.replies.push(hit('c2', 1));
    expect(await host.runner.run(say('Two'))).toMatchObject({ ok: true, turn: 2 });
    expect(recovered).toEqual(['checkpoint turn_1']);
  });

  it('ends the lease when taking back the open turn of a turn that never started fails too', async () => {
    const { host, faulty, memory } = await opened();
    let reads = 0;
    let cas = 0;
    faulty.fail((op, key) => {
      if (op === 'get' && key === 'game:checkpoints' && reads++ === 0) return 'throw';
      if (op === 'cas' && key === 'game:turns:head' && ++cas === 2) return 'throw'; // the withdrawal
      return undefined;
    });
    await expect(host.runner.run(say('Attack'))).rejects.toThrow();
    expect(await memory.get('game:turns:head')).toMatchObject({ lease: null });
  });

  it('keeps owing a checkpoint while its write still fails', async () => {
    const { host, faulty } = await opened();
    faulty.fail((op, key) => (op === 'set' && key.startsWith('game:checkpoint:') ? 'throw' : undefined));
    const recovered: string[] = [];
    host.runner.on('recovered', (e) => recovered.push(e.action));
    host.replies.push({ text: 'a' }, { text: 'b' });
    await host.runner.run(say('One'));
    expect(await host.runner.run(say('Two'))).toMatchObject({ checkpoint: { code: 'failed' } });
    expect(recovered).toEqual([]);
  });

  it('throws not_opened when the head disappeared from the store', async () => {
    const { host, memory } = await opened();
    await memory.delete('game:turns:head');
    const err = await rejection(host.runner.run(say('Hi')));
    expect(err.code).toBe('not_opened');
  });
});
