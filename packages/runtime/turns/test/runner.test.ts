import { createMemoryStore, isParleyError } from '@parley/core';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_INPUT_LENGTH, MAX_KEY_LENGTH, TURN_REFUSAL_CODES, type TurnRunnerEvents } from '../src/index.js';
import { deferred, hit, say, setup } from './helpers.js';

let env: ReturnType<typeof setup>;
afterEach(() => {
  expect(env.clock.pendingTimers()).toBe(0);
});

async function opened(options: Parameters<typeof setup>[0] = {}) {
  env = setup(options);
  expect(await env.host.runner.open({ label: 'campaign start' })).toEqual({
    resumed: false,
    turn: 0,
    turnId: 'turn_0',
  });
  return env;
}

describe('a turn', () => {
  it('runs the model through the gate, records the turn, commits and takes a checkpoint', async () => {
    const { host, store } = await opened();
    host.replies.push(hit('c1', 3));
    const result = await host.runner.run(say('I open the door'));
    expect(result).toMatchObject({
      ok: true,
      replayed: false,
      turnId: 'turn_1',
      turn: 1,
      key: 'turn_1',
      record: { turn: 1, text: 'You lose 3 HP.' },
      branchCommitted: false,
      checkpoint: { ok: true },
      data: null,
    });
    expect(host.state).toEqual({ hp: 17, log: ['turn_1: I open the door'] });
    expect(host.requests).toEqual(['aria: I open the door']);
    const log = await host.runner.log();
    expect(log.ok && log.checkpoints.map((c) => [c.id, c.label])).toEqual([
      ['turn_0', 'campaign start'],
      ['turn_1', 'turn 1'],
    ]);
    expect(await store.get('game:turns:head')).toMatchObject({
      kind: 'parley.turns.head',
      version: 2,
      data: { turn: 1, turnId: 'turn_1', open: null, journal: [] }, // no key given: no journal entry
      lease: null,
    });
  });

  it('emits started and committed after the commit', async () => {
    const { host } = await opened();
    const seen: string[] = [];
    const off = host.runner.on('started', (e) => seen.push(`started ${e.turnId}`));
    host.runner.on('committed', (e: TurnRunnerEvents['committed']) =>
      seen.push(`committed ${e.turnId} ${e.ok}`),
    );
    host.replies.push({ text: 'Quiet.' });
    await host.runner.run(say('Wait'));
    off();
    host.replies.push({ text: 'Quiet.' });
    await host.runner.run(say('Wait'));
    expect(seen).toEqual(['started turn_1', 'committed turn_1 true', 'committed turn_2 true']);
  });

  it("refuses through the host's accept hook without calling the model", async () => {
    const { host } = await opened();
    const refused: string[] = [];
    host.runner.on('refused', (e) => refused.push(e.code));
    expect(await host.runner.run(say(''))).toEqual({
      ok: false,
      code: 'empty_input',
      message: 'Say something',
      reason: 'Say something',
    });
    expect(host.requests).toEqual([]);
    expect(refused).toEqual(['empty_input']);
  });

  it("still reads a host refusal's deprecated `reason` as its message", async () => {
    const { host } = await opened({
      accept: (input) => (input.text === '' ? { code: 'empty_input', reason: 'Say more' } : undefined),
    });
    expect(await host.runner.run(say(''))).toEqual({
      ok: false,
      code: 'empty_input',
      message: 'Say more',
      reason: 'Say more',
    });
  });

  it('retries a refused call with tool_feedback and commits the report when K retries are spent', async () => {
    const { host } = await opened({ loop: { maxRetries: 1 } });
    host.replies.push(hit('c1', 50), hit('c2', 60));
    const result = await host.runner.run(say('I jump'));
    expect(result.ok && result.record).toEqual({ turn: 1, text: 'report: max_retries' });
    expect(result.ok && !result.replayed && result.outcome.ok).toBe(false);
    expect(host.state.hp).toBe(20);
  });

  it('commits a turn whose checkpoint is refused because checkpoints are off', async () => {
    const { host } = await opened({ checkpoints: { maxCheckpoints: 0 } });
    host.replies.push(hit('c1', 3));
    const result = await host.runner.run(say('Go'));
    expect(result).toMatchObject({ ok: true, checkpoint: { ok: false, code: 'disabled' } });
    expect(await host.runner.rollback('turn_0')).toMatchObject({ ok: false, code: 'disabled' });
  });
});

describe('where checkpoints live', () => {
  it('keeps the checkpoints in another store under another prefix when told to', async () => {
    const other = createMemoryStore();
    const { host, memory } = await opened({ checkpoints: { store: other, keyPrefix: 'cp:' } });
    host.replies.push({ text: 'a' });
    await host.runner.run(say('One'));
    const keys = async (store: typeof memory, prefix: string) => {
      const found: string[] = [];
      for await (const entry of store.list(prefix)) found.push(entry.key);
      return found;
    };
    expect(await keys(other, 'cp:checkpoint:turn_1:')).toHaveLength(1);
    expect(await keys(memory, 'game:checkpoint:')).toEqual([]);
    expect(await memory.get('game:turns:head')).toMatchObject({ data: { turnId: 'turn_1' } });
  });
});

describe('submission keys', () => {
  it('answers a repeated key from the journal: the effect is applied once', async () => {
    const { host } = await opened();
    host.replies.push(hit('c1', 3));
    const first = await host.runner.run(say('Attack'), { key: 'msg_1' });
    const replays: string[] = [];
    host.runner.on('replayed', (e) => replays.push(e.key));
    expect(await env.store.get('game:turns:head')).toMatchObject({
      data: { journal: [{ key: 'msg_1', result: { turnId: 'turn_1', record: { turn: 1 } } }] },
    });
    const again = await host.runner.run(say('Attack'), { key: 'msg_1' });
    expect(again).toEqual({
      ok: true,
      replayed: true,
      turnId: 'turn_1',
      turn: 1,
      key: 'msg_1',
      record: first.ok && first.record,
    });
    host.replies.push({ text: 'Next.' });
    await host.runner.run(say('Look'), { key: 'msg_2' });
    expect(await host.runner.run(say('Attack'), { key: 'msg_1' })).toMatchObject({
      ok: true,
      replayed: true,
    });
    expect(host.effects).toBe(1);
    expect(host.state.hp).toBe(17);
    expect(replays).toEqual(['msg_1', 'msg_1']);
  });

  it('refuses an empty key and one longer than MAX_KEY_LENGTH, without calling the model', async () => {
    const { host } = await opened();
    for (const key of ['', 'k'.repeat(MAX_KEY_LENGTH + 1)]) {
      expect(await host.runner.run(say('Hi'), { key })).toMatchObject({ ok: false, code: 'invalid_key' });
    }
    expect(host.requests).toEqual([]);
  });

  it('refuses an input longer than maxInputLength before anything runs, keyed or not', async () => {
    const { host } = await opened();
    const long = say('x'.repeat(MAX_INPUT_LENGTH));
    expect(await host.runner.run(long)).toMatchObject({ ok: false, code: 'input_too_large' });
    expect(await host.runner.run(long, { key: 'msg_big' })).toMatchObject({
      ok: false,
      code: 'input_too_large',
    });
    expect(host.requests).toEqual([]);
    host.replies.push({ text: 'Ok.' });
    expect(await host.runner.run(say('x'.repeat(100)), { key: 'msg_big' })).toMatchObject({ ok: true });
  });

  it('keeps keys that differ only in a lone surrogate apart', async () => {
    const { host } = await opened();
    host.replies.push({ text: 'a' }, { text: 'b' });
    await host.runner.run(say('One'), { key: 'k\ud800' });
    await host.runner.run(say('Two'), { key: 'k\udbff' });
    expect(await host.runner.run(say('One'), { key: 'k\ud800' })).toMatchObject({ replayed: true, turn: 1 });
  });

  it('refuses a key reused with other input (identity is content)', async () => {
    const { host } = await opened();
    host.replies.push({ text: 'Ok.' });
    await host.runner.run(say('Attack'), { key: 'msg_1' });
    expect(await host.runner.run(say('Flee'), { key: 'msg_1' })).toMatchObject({
      ok: false,
      code: 'key_reused',
    });
    expect(host.requests).toHaveLength(1);
  });

  it('refuses the same key while it runs (in_progress), and another turn (busy)', async () => {
    const { host } = await opened();
    const held = deferred<{ text: string }>();
    host.replies.push(() => held.promise);
    const running = host.runner.run(say('Think'), { key: 'msg_1' });
    await waitFor(() => host.requests.length === 1);
    expect(await host.runner.run(say('Think'), { key: 'msg_1' })).toMatchObject({
      ok: false,
      code: 'in_progress',
    });
    expect(await host.runner.run(say('Think again'), { key: 'msg_1' })).toMatchObject({
      ok: false,
      code: 'key_reused',
    });
    expect(await host.runner.run(say('Other'))).toMatchObject({ ok: false, code: 'busy' });
    expect(await host.runner.rollback('turn_0')).toMatchObject({ ok: false, code: 'busy' });
    expect(await host.runner.undo()).toMatchObject({ ok: false, code: 'busy' });
    held.resolve({ text: 'Done.' });
    expect(await running).toMatchObject({ ok: true, turnId: 'turn_1' });
    expect(TURN_REFUSAL_CODES).toEqual([
      'busy',
      'in_progress',
      'key_reused',
      'conflict',
      'invalid_key',
      'input_too_large',
    ]);
  });
});

describe('rollback and undo', () => {
  it('rolls back to an earlier turn, undoes it, and a new turn makes the rollback a branch', async () => {
    const { host } = await opened();
    host.replies.push(hit('c1', 3), hit('c1', 4));
    await host.runner.run(say('One'));
    await host.runner.run(say('Two'));
    expect(host.state.hp).toBe(13);
    const back = await host.runner.rollback('turn_1');
    expect(back).toMatchObject({
      ok: true,
      id: 'turn_1',
      log: { rollback: { fromId: 'turn_2', canUndo: true } },
    });
    expect(host.state).toEqual({ hp: 17, log: ['turn_1: One'] });
    expect(await host.runner.undo()).toMatchObject({ ok: true, id: 'turn_2' });
    expect(host.state.hp).toBe(13);
    await host.runner.rollback('turn_1');
    host.replies.push(hit('c1', 5));
    const branch = await host.runner.run(say('Three'));
    expect(branch).toMatchObject({ ok: true, turn: 2, turnId: 'turn_3', branchCommitted: true });
    expect(host.state).toEqual({ hp: 12, log: ['turn_1: One', 'turn_3: Three'] });
    expect(await host.runner.undo()).toMatchObject({ ok: false, code: 'undo_unavailable' });
  });

  it('reports every change of the log through onLog', async () => {
    const logs: string[] = [];
    const { host } = await opened({ onLog: (log) => logs.push(log.checkpoints.map((c) => c.id).join(',')) });
    host.replies.push({ text: 'a' }, { text: 'b' });
    await host.runner.run(say('One'));
    await host.runner.rollback('turn_0');
    await host.runner.run(say('Two'));
    expect(logs).toEqual(['turn_0', 'turn_0,turn_1', 'turn_0', 'turn_0', 'turn_0,turn_2']);
  });
});

describe('misuse', () => {
  it('throws not_opened before open', async () => {
    env = setup();
    const err = await env.host.runner.run(say('Hi')).catch((e: unknown) => e);
    expect(isParleyError(err, 'not_opened')).toBe(true);
    expect(isParleyError(await env.host.runner.undo().catch((e: unknown) => e), 'not_opened')).toBe(true);
  });

  it('throws invalid_argument for an empty prefix and bad durations', () => {
    for (const bad of [
      { keyPrefix: '' },
      { turnTimeoutMs: 0 },
      { journalTtlMs: 1.5 },
      { maxInputLength: -1 },
    ]) {
      let caught: unknown;
      try {
        setup(bad);
      } catch (err) {
        caught = err;
      }
      expect(isParleyError(caught, 'invalid_argument')).toBe(true);
    }
    env = setup();
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !condition(); i++) await Promise.resolve();
  if (!condition()) throw new Error('condition not reached');
}
