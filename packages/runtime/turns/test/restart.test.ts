// A process dies at each point of a turn; a new process on the same Store opens the runner and
// carries on: nothing is applied twice, nothing committed is lost.
import { createManualClock, createMemoryStore, isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TURN_TIMEOUT_MS } from '../src/index.js';
import { createFaultyStore, createHost, hit, say } from './helpers.js';

function world() {
  const clock = createManualClock({ now: 1_000 });
  const memory = createMemoryStore({ clock });
  return { clock, memory };
}

/** A process whose store dies at a chosen point (its writes fail from then on). */
function processOn(memory: ReturnType<typeof world>['memory'], clock: ReturnType<typeof world>['clock']) {
  const faulty = createFaultyStore(memory);
  return { host: createHost(faulty.store, clock), die: () => faulty.fail(() => 'throw'), faulty };
}

/** Lets the head's lease be taken, then fails every later compare-and-set of the head (a dying store). */
function failHeadAfterLease(faulty: ReturnType<typeof createFaultyStore>): void {
  let cas = 0;
  faulty.fail((op, key) => {
    if (op !== 'cas' || key !== 'game:turns:head') return undefined;
    cas += 1;
    return cas > 1 ? 'throw' : undefined;
  });
}

/** A process that opens, then dies while its first turn waits for the model: the turn stays open. */
async function diesMidTurn(
  memory: ReturnType<typeof world>['memory'],
  clock: ReturnType<typeof world>['clock'],
): Promise<void> {
  const first = processOn(memory, clock);
  await first.host.runner.open();
  first.host.replies.push(async () => {
    first.die();
    return { text: 'lost' };
  });
  await expect(first.host.runner.run(say('Look'))).rejects.toThrow();
}

describe('a restart', () => {
  it('resumes from the head: the state, the turn number and the gate come back', async () => {
    const { clock, memory } = world();
    const first = processOn(memory, clock);
    await first.host.runner.open();
    first.host.replies.push(hit('c1', 3));
    await first.host.runner.run(say('Attack'));
    const second = createHost(memory, clock);
    expect(await second.runner.open()).toEqual({ resumed: true, turn: 1, turnId: 'turn_1' });
    expect(second.state).toEqual({ hp: 17, log: ['turn_1: Attack'] });
    second.replies.push(hit('c9', 1));
    expect(await second.runner.run(say('Again'))).toMatchObject({ turn: 2 });
  });

  it('drops a turn whose process died between applying its effects and committing, and runs it once when resent', async () => {
    const { clock, memory } = world();
    const first = processOn(memory, clock);
    await first.host.runner.open();
    first.host.replies.push(async () => {
      first.die(); // the effects will apply in memory; the commit will never reach the store
      return hit('c1', 3);
    });
    await expect(first.host.runner.run(say('Attack'), { key: 'msg_1' })).rejects.toThrow();
    expect(first.host.effects).toBe(1);

    const second = createHost(memory, clock);
    const opened = await second.runner.open();
    expect(opened).toMatchObject({ resumed: true, turn: 0, pending: { turnId: 'turn_1' } });
    expect(await second.runner.run(say('Attack'), { key: 'msg_1' })).toMatchObject({
      ok: false,
      code: 'in_progress',
    });
    clock.advance(DEFAULT_TURN_TIMEOUT_MS);
    const recovered: string[] = [];
    second.runner.on('recovered', (e) => recovered.push(`${e.action} ${e.turnId}`));
    second.replies.push(hit('c1', 3));
    const again = await second.runner.run(say('Attack'), { key: 'msg_1' });
    expect(again).toMatchObject({ ok: true, turn: 1, replayed: false });
    expect(recovered).toEqual(['abandoned turn_1']);
    expect(second.state.hp).toBe(17);
    expect(await second.runner.run(say('Attack'), { key: 'msg_1' })).toMatchObject({ replayed: true });
    expect(second.effects).toBe(1);
  });

  it('takes over an open turn at once when the host knows it is the only process', async () => {
    const { clock, memory } = world();
    await diesMidTurn(memory, clock);
    const second = createHost(memory, clock);
    expect(await second.runner.open({ takeOver: true })).toMatchObject({ turn: 0, abandoned: 'turn_1' });
    second.replies.push({ text: 'seen' });
    expect(await second.runner.run(say('Look'))).toMatchObject({ ok: true, turn: 1 });
  });

  it('keeps the submission key in the head and writes the checkpoint a process missed after its commit', async () => {
    const { clock, memory } = world();
    const first = processOn(memory, clock);
    await first.host.runner.open();
    // the head commit reaches the store, then the process dies before the journal and the checkpoint
    first.faulty.fail((op, key) => (op === 'set' && key !== 'game:turns:head' ? 'throw' : undefined));
    first.host.replies.push(hit('c1', 3));
    expect(await first.host.runner.run(say('Attack'), { key: 'msg_1' })).toMatchObject({
      ok: true,
      checkpoint: { ok: false, code: 'failed' },
    });
    const second = createHost(memory, clock);
    const recovered: string[] = [];
    second.runner.on('recovered', (e) => recovered.push(`${e.action} ${e.turnId}`));
    await second.runner.open();
    expect(recovered).toEqual(['checkpoint turn_1']);
    expect(await second.runner.run(say('Attack'), { key: 'msg_1' })).toMatchObject({ replayed: true });
    expect(second.state.hp).toBe(17);
    expect(second.effects).toBe(0);
    const log = await second.runner.log();
    expect(log.ok && log.checkpoints.map((c) => c.id)).toEqual(['turn_0', 'turn_1']);
  });

  it('lets the head follow a rollback whose process died before the head moved', async () => {
    const { clock, memory } = world();
    const first = processOn(memory, clock);
    await first.host.runner.open();
    first.host.replies.push(hit('c1', 3), hit('c1', 4));
    await first.host.runner.run(say('One'));
    await first.host.runner.run(say('Two'));
    failHeadAfterLease(first.faulty);
    await expect(first.host.runner.rollback('turn_1')).rejects.toThrow();
    clock.advance(DEFAULT_TURN_TIMEOUT_MS); // the dead process's lease on the head runs out

    const second = createHost(memory, clock);
    const recovered: string[] = [];
    second.runner.on('recovered', (e) => recovered.push(`${e.action} ${e.turnId}`));
    expect(await second.runner.open()).toMatchObject({ turn: 1, turnId: 'turn_1' });
    expect(recovered).toEqual(['head turn_1']);
    expect(second.state.hp).toBe(17);
    expect(await second.runner.undo()).toMatchObject({ ok: true, id: 'turn_2' });
    expect(second.state.hp).toBe(13);
  });

  it("marks a turn open on the head its catch-up moved, when another process's rollback died before the head followed", async () => {
    const { clock, memory } = world();
    const first = processOn(memory, clock);
    await first.host.runner.open();
    first.host.replies.push(hit('c1', 3), hit('c2', 4));
    await first.host.runner.run(say('One'));
    // turn 2 commits and its checkpoint fails: this process owes it
    first.faulty.fail((op, key) =>
      op === 'set' && key.startsWith('game:checkpoint:') ? 'throw' : undefined,
    );
    expect(await first.host.runner.run(say('Two'))).toMatchObject({ ok: true, checkpoint: { ok: false } });
    first.faulty.fail(() => undefined);
    const second = processOn(memory, clock);
    await second.host.runner.open(); // takes the owed checkpoint of turn 2
    failHeadAfterLease(second.faulty);
    await expect(second.host.runner.rollback('turn_1')).rejects.toThrow(); // the log moved, the head did not
    clock.advance(DEFAULT_TURN_TIMEOUT_MS);

    const recovered: string[] = [];
    first.host.runner.on('recovered', (e) => recovered.push(`${e.action} ${e.turnId}`));
    const opened: unknown[] = [];
    first.host.runner.on('started', () => {
      void memory
        .get('game:turns:head')
        .then((head) => opened.push((head as { data: { open: unknown } }).data.open));
    });
    first.host.replies.push(hit('c3', 1));
    expect(await first.host.runner.run(say('Three'))).toMatchObject({ ok: true, turn: 2, turnId: 'turn_3' });
    expect(recovered).toEqual(['head turn_1']);
    expect(opened).toEqual([expect.objectContaining({ turn: 2, turnId: 'turn_3' })]);
    expect(first.host.state.hp).toBe(16);
    const head = (await memory.get('game:turns:head')) as { data: { turn: number; open: unknown } };
    expect(head.data).toMatchObject({ turn: 2, turnId: 'turn_3', open: null });
  });

  it('lets the head follow an undo whose process died before the head moved', async () => {
    const { clock, memory } = world();
    const first = processOn(memory, clock);
    await first.host.runner.open();
    first.host.replies.push(hit('c1', 3));
    await first.host.runner.run(say('One'));
    await first.host.runner.rollback('turn_0');
    failHeadAfterLease(first.faulty);
    await expect(first.host.runner.undo()).rejects.toThrow();
    clock.advance(DEFAULT_TURN_TIMEOUT_MS);
    const second = createHost(memory, clock);
    expect(await second.runner.open()).toMatchObject({ turn: 1, turnId: 'turn_1' });
    expect(second.state.hp).toBe(17);
  });

  it('refuses to open over a head that is not a runner head', async () => {
    const { clock, memory } = world();
    await memory.set('game:turns:head', { kind: 'something else' });
    const err = await createHost(memory, clock)
      .runner.open()
      .catch((e: unknown) => e);
    expect(isParleyError(err, 'corrupt_record')).toBe(true);
  });

  it('opens once when two processes start together', async () => {
    const { clock, memory } = world();
    const [a, b] = [createHost(memory, clock), createHost(memory, clock)];
    const opened = await Promise.all([a.runner.open(), b.runner.open()]);
    expect(opened.map((o) => o.resumed).sort()).toEqual([false, true]);
  });

  it('refuses busy and moves nothing when a rollback cannot take the head’s lease', async () => {
    const { clock, memory } = world();
    const first = processOn(memory, clock);
    await first.host.runner.open();
    first.host.replies.push({ text: 'a' });
    await first.host.runner.run(say('One'));
    first.faulty.fail((op, key) => (op === 'cas' && key === 'game:turns:head' ? 'lose' : undefined));
    expect(await first.host.runner.rollback('turn_0')).toMatchObject({ ok: false, code: 'busy' });
    const log = await first.host.runner.log();
    expect(log.ok && log.rollback).toBeNull();
  });
});

describe('records it cannot read', () => {
  it('counts an unreadable journal entry as absent and runs the submission', async () => {
    const { clock, memory } = world();
    const host = createHost(memory, clock);
    await host.runner.open();
    await memory.set('game:turns:key:msg_1', { kind: 'parley.turns.turn', turn: 1, turnId: 'turn_1' });
    host.replies.push({ text: 'fresh' });
    expect(await host.runner.run(say('Look'), { key: 'msg_1' })).toMatchObject({ replayed: false });
  });

  it('resumes without catching up checkpoints when the checkpoint log is corrupt', async () => {
    const { clock, memory } = world();
    const first = createHost(memory, clock);
    await first.runner.open();
    await memory.set('game:checkpoints', 'garbage');
    const second = createHost(memory, clock);
    expect(await second.runner.open()).toMatchObject({ resumed: true, turn: 0 });
    expect(await second.runner.log()).toMatchObject({ ok: false, code: 'corrupt_record' });
  });

  it('refuses busy when another process keeps winning the expired open turn’s head', async () => {
    const { clock, memory } = world();
    await diesMidTurn(memory, clock);
    const second = processOn(memory, clock);
    expect(await second.host.runner.open()).toMatchObject({ pending: { turnId: 'turn_1' } });
    clock.advance(DEFAULT_TURN_TIMEOUT_MS);
    second.faulty.fail((op, key) => (op === 'cas' && key === 'game:turns:head' ? 'lose' : undefined));
    expect(await second.host.runner.run(say('Look'))).toMatchObject({ ok: false, code: 'busy' });
    expect(second.host.requests).toEqual([]);
    const third = processOn(memory, clock);
    expect(await third.host.runner.open({ takeOver: true })).toMatchObject({ abandoned: 'turn_1' });
  });

  it('keeps the head when the checkpoint a rollback moved to cannot be read', async () => {
    const { clock, memory } = world();
    const first = processOn(memory, clock);
    await first.host.runner.open();
    first.host.replies.push(hit('c1', 3));
    await first.host.runner.run(say('One'));
    failHeadAfterLease(first.faulty);
    await expect(first.host.runner.rollback('turn_0')).rejects.toThrow();
    clock.advance(DEFAULT_TURN_TIMEOUT_MS);
    for await (const entry of memory.list('game:checkpoint:turn_0')) await memory.delete(entry.key);
    const second = createHost(memory, clock);
    expect(await second.runner.open()).toMatchObject({ turn: 1, turnId: 'turn_1' });
    expect(second.state.hp).toBe(17);
  });
});
