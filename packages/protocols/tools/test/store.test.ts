import { createManualClock, createMemoryStore, type Store } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolGate, defineTool, type ToolGateEvents } from '../src/index.js';
import { createCampaign, EXPLORING, hpCall, storedCall, storedCallAt } from './helpers.js';

function gateOn(store: Store, options: { storeTtlMs?: number } = {}) {
  const campaign = createCampaign();
  const gate = createToolGate({ tools: campaign.tools, allowlist: ['move', 'hp_delta'], store, ...options });
  const errors: ToolGateEvents['error'][] = [];
  gate.on('error', (event) => errors.push(event));
  return { ...campaign, gate, errors };
}

/** A `charge` tool whose executor waits until released, to stand for a process that dies mid-call. */
function hangingCharge() {
  let runs = 0;
  let started: () => void = () => {};
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const charge = defineTool({
    name: 'charge',
    description: 'Charges a card',
    args: z.object({ cents: z.number() }),
    reasons: [],
    execute: () => {
      runs++;
      started();
      return new Promise<never>(() => {}); // the process "crashes" before this settles
    },
  });
  return { charge, runs: () => runs, running };
}

describe('createToolGate({ store })', () => {
  it('replays a call recorded by a gate before a restart, without running it again', async () => {
    const store = createMemoryStore();
    const before = gateOn(store);
    await before.gate.process([hpCall('c1')], { turn: 3, context: EXPLORING });
    const after = gateOn(store); // a new process on the same store
    const retry = await after.gate.process([hpCall('c1')], { turn: 3, context: EXPLORING });
    expect(after.runs).toHaveLength(0);
    expect(retry.executed[0]).toMatchObject({ id: 'c1', result: { hp: 12 }, replayed: true });
    expect(retry.records[0]).toMatchObject({ replayed: true, outcome: 'executed' });
    const entry = await storedCallAt(store, 'parley:tools:3:c1');
    expect(entry).toMatchObject({ state: 'done', id: 'c1' });
  });

  it('answers outcome_unknown for a call left executing by a crash, and never runs it', async () => {
    const store = createMemoryStore();
    const crashed = hangingCharge();
    const first = createToolGate({ tools: [crashed.charge], allowlist: ['charge'], store });
    void first.process([{ id: 'pay_1', tool: 'charge', args: { cents: 100 } }], {
      turn: 1,
      context: undefined,
    });
    await crashed.running;
    expect(await storedCallAt(store, 'parley:tools:1:pay_1')).toMatchObject({
      state: 'executing',
      tool: 'charge',
    });

    const restarted = hangingCharge();
    const second = createToolGate({ tools: [restarted.charge], allowlist: ['charge'], store });
    const refused: ToolGateEvents['refused'][] = [];
    second.on('refused', (event) => refused.push(event));
    const call = { id: 'pay_1', tool: 'charge', args: { cents: 100 } };
    const result = await second.process([call], { turn: 1, context: undefined });
    expect(result.feedback.failed_calls[0]).toMatchObject({
      id: 'pay_1',
      status: 'error',
      code: 'outcome_unknown',
    });
    expect(result.executed).toEqual([]);
    expect(restarted.runs()).toBe(0);
    expect(refused).toHaveLength(1);
    const again = await second.process([call], { turn: 1, context: undefined });
    expect(again.records[0]).toMatchObject({ code: 'outcome_unknown', replayed: true });
    expect(restarted.runs()).toBe(0);
    expect(refused).toHaveLength(1);
  });

  it('lets only one of two gates on one store run a call id, the other answering outcome_unknown', async () => {
    const store = createMemoryStore();
    const a = gateOn(store);
    const b = gateOn(store);
    const [fromA, fromB] = await Promise.all([
      a.gate.process([hpCall('c1')], { turn: 1, context: EXPLORING }),
      b.gate.process([hpCall('c1')], { turn: 1, context: EXPLORING }),
    ]);
    expect(a.runs.length + b.runs.length).toBe(1);
    const codes = [fromA, fromB].map((r) => r.feedback.failed_calls[0]?.code ?? 'executed');
    expect(codes.sort()).toEqual(['executed', 'outcome_unknown']);
  });

  it('replays the done outcome when another gate finished the call while this one was checking it', async () => {
    const store = createMemoryStore();
    const a = gateOn(store);
    const b = gateOn(store);
    // b reads nothing in the store, then a runs the call, then b's claim finds it done.
    const slow = createToolGate({
      tools: b.tools,
      allowlist: ['move', 'hp_delta'],
      store,
      policies: [
        {
          name: 'wait_for_a',
          check: async () => {
            await a.gate.process([hpCall('c1')], { turn: 1, context: EXPLORING });
            return undefined;
          },
        },
      ],
    });
    const result = await slow.process([hpCall('c1')], { turn: 1, context: EXPLORING });
    expect(result.executed[0]).toMatchObject({ replayed: true, result: { hp: 12 } });
    expect(a.runs).toHaveLength(1);
    expect(b.runs).toHaveLength(0);
  });

  it('gives the claim back when the executor refused, so the call may run again later', async () => {
    const store = createMemoryStore();
    const t = gateOn(store);
    t.hp.set('pc_1', 0); // hp_delta refuses: character_dead
    const refused = await t.gate.process([hpCall('c1')], { turn: 1, context: EXPLORING });
    expect(refused.feedback.failed_calls[0]?.code).toBe('tool_refused');
    expect(await storedCallAt(store, 'parley:tools:1:c1')).toBeUndefined();
    const later = gateOn(store); // another process, once the character lives again
    const ran = await later.gate.process([hpCall('c1')], { turn: 1, context: EXPLORING });
    expect(ran.executed[0]).toMatchObject({ id: 'c1', replayed: false });
    expect(later.runs).toHaveLength(1);
  });

  it('records an executor error as done, so it is replayed rather than run twice', async () => {
    const store = createMemoryStore();
    let runs = 0;
    const boom = defineTool({
      name: 'boom',
      description: 'Fails',
      args: z.object({}),
      reasons: [],
      execute: () => {
        runs++;
        throw new Error('half done');
      },
    });
    const first = createToolGate({ tools: [boom], allowlist: ['boom'], store });
    await first.process([{ id: 'b1', tool: 'boom', args: {} }], { turn: 1, context: undefined });
    const second = createToolGate({ tools: [boom], allowlist: ['boom'], store });
    const retry = await second.process([{ id: 'b1', tool: 'boom', args: {} }], {
      turn: 1,
      context: undefined,
    });
    expect(retry.feedback.failed_calls[0]).toMatchObject({ code: 'executor_error' });
    expect(runs).toBe(1);
  });

  it('keeps the claim when the result cannot be stored, so a restart reports outcome_unknown', async () => {
    const store = createMemoryStore();
    const odd = defineTool({
      name: 'odd',
      description: 'Returns a function',
      args: z.object({}),
      reasons: [],
      execute: () => () => 1,
    });
    const first = createToolGate({ tools: [odd], allowlist: ['odd'], store });
    const errors: ToolGateEvents['error'][] = [];
    first.on('error', (event) => errors.push(event));
    const ran = await first.process([{ id: 'o1', tool: 'odd', args: {} }], { turn: 1, context: undefined });
    expect(ran.executed).toHaveLength(1);
    expect(errors.map((e) => [e.stage, e.id])).toEqual([['store', 'o1']]);
    const second = createToolGate({ tools: [odd], allowlist: ['odd'], store });
    const retry = await second.process([{ id: 'o1', tool: 'odd', args: {} }], {
      turn: 1,
      context: undefined,
    });
    expect(retry.feedback.failed_calls[0]?.code).toBe('outcome_unknown');
  });

  it('refuses with store_failed, running nothing, when the store cannot be read or claimed', async () => {
    const store = createMemoryStore();
    const failing: Store = {
      ...store,
      getEntry: () => Promise.reject(new Error('redis down')), // the store's read of a record
    };
    const t = gateOn(failing);
    const result = await t.gate.process([hpCall('c1')], { turn: 1, context: EXPLORING });
    expect(result.feedback.failed_calls[0]).toMatchObject({ status: 'error', code: 'store_failed' });
    expect(t.runs).toHaveLength(0);
    expect(t.errors.map((e) => e.stage)).toEqual(['store']);

    const noClaim = gateOn({ ...store, compareAndSet: () => Promise.reject(new Error('redis down')) });
    const claimed = await noClaim.gate.process([hpCall('c2')], { turn: 1, context: EXPLORING });
    expect(claimed.feedback.failed_calls[0]?.code).toBe('store_failed');
    expect(noClaim.runs).toHaveLength(0);
  });

  it('treats a malformed stored entry as an unknown outcome', async () => {
    const store = createMemoryStore();
    const t = gateOn(store);
    for (const [id, value] of [
      ['c1', 'garbage'],
      ['c2', { state: 'done', id: 'c2', record: null }],
      ['c3', { state: 'done', id: 'c3', record: {} }],
      ['c4', ['x']],
    ] as const) {
      await store.set(`parley:tools:1:${id}`, storedCall(value));
      const result = await t.gate.process([hpCall(id)], { turn: 1, context: EXPLORING });
      expect(result.feedback.failed_calls[0]?.code).toBe('outcome_unknown');
    }
    expect(t.runs).toHaveLength(0);
  });

  it('writes with storeTtlMs and a custom prefix, and forgets stored turns after a rollback', async () => {
    const clock = createManualClock();
    const store = createMemoryStore({ clock });
    const campaign = createCampaign();
    const gate = createToolGate({
      tools: campaign.tools,
      allowlist: ['move', 'hp_delta'],
      store,
      clock, // the store's clock: the TTL is computed and stored on one clock
      storePrefix: 'camp:7:',
      storeTtlMs: 60_000,
    });
    await gate.process([hpCall('c1')], { turn: 1, context: EXPLORING });
    await gate.process([hpCall('c2')], { turn: 2, context: EXPLORING });
    await gate.process([hpCall('c3')], { turn: 12, context: EXPLORING });
    expect((await store.getEntry('camp:7:1:c1'))?.expiresAt).toBe(60_000);
    await gate.forgetTurnsAfter(1);
    expect(await store.get('camp:7:1:c1')).toBeDefined();
    expect(await store.get('camp:7:2:c2')).toBeUndefined();
    expect(await store.get('camp:7:12:c3')).toBeUndefined();
    await gate.reset();
    expect(await store.get('camp:7:1:c1')).toBeUndefined();
    const fresh = createToolGate({
      tools: campaign.tools,
      allowlist: ['move', 'hp_delta'],
      store,
      storePrefix: 'camp:7:',
    });
    const again = await fresh.process([hpCall('c1')], { turn: 1, context: EXPLORING });
    expect(again.executed[0]?.replayed).toBe(false);
  });

  it('refuses store options that are not usable', () => {
    const { tools } = createCampaign();
    const base = { tools, allowlist: ['move', 'hp_delta'] as const };
    expect(() => createToolGate({ ...base, store: {} as Store })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() => createToolGate({ ...base, store: createMemoryStore(), storePrefix: 3 as never })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() => createToolGate({ ...base, store: createMemoryStore(), storeTtlMs: -1 })).toThrow(
      expect.objectContaining({ code: 'invalid_timeout' }),
    );
  });
});
