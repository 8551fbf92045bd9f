import { createMemoryStore } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createToolGate,
  DEFAULT_TOOL_GATE_LIMITS,
  defineTool,
  type ToolGateEvents,
  type ToolGateLimits,
} from '../src/index.js';
import { createCampaign, createSlowTool, EXPLORING, hpCall } from './helpers.js';

function setup(limits: Partial<ToolGateLimits> = {}, keepTurns?: number) {
  const campaign = createCampaign();
  const gate = createToolGate({
    tools: campaign.tools,
    allowlist: ['move', 'hp_delta'],
    limits,
    ...(keepTurns === undefined ? {} : { keepTurns }),
  });
  const refused: ToolGateEvents['refused'][] = [];
  gate.on('refused', (event) => refused.push(event));
  return { ...campaign, gate, refused };
}

/** A tool whose result has a property that throws when read (a closed connection's rows); `runs()` counts executions. */
function hostileTool() {
  let ran = 0;
  const hostile = defineTool({
    name: 'hostile',
    description: 'Returns an object whose property throws when read',
    args: z.object({}),
    reasons: [],
    execute: () => {
      ran++;
      return {
        get rows(): number {
          throw new Error('read after the connection closed');
        },
      };
    },
  });
  return { hostile, runs: () => ran };
}

describe('limits', () => {
  it('[CALLID-05] refuses every call of a batch longer than maxBatchCalls and runs none of them', async () => {
    const t = setup({ maxBatchCalls: 3 });
    const calls = [hpCall('a', -1), hpCall('b', -1), hpCall('c', -1), hpCall('d', -1)];
    const result = await t.gate.process(calls, { turn: 1, context: EXPLORING });
    expect(result.executed).toEqual([]);
    expect(result.feedback.failed_calls.map((failed) => [failed.id, failed.code])).toEqual([
      ['a', 'too_many_calls'],
      ['b', 'too_many_calls'],
      ['c', 'too_many_calls'],
      ['d', 'too_many_calls'],
    ]);
    expect(result.records).toHaveLength(4);
    expect(t.runs).toEqual([]);
    expect(t.refused).toHaveLength(4);
    const fits = await t.gate.process(calls.slice(0, 3), { turn: 1, context: EXPLORING });
    expect(fits.executed).toHaveLength(3);
  });

  it('names calls of an over-long batch by position when their id is missing or too long', async () => {
    const t = setup({ maxBatchCalls: 1, maxCallIdLength: 4 });
    const result = await t.gate.process(
      [{ id: 'x'.repeat(5), tool: 'y'.repeat(65), args: {} }, null as never],
      {
        turn: 1,
        context: EXPLORING,
      },
    );
    expect(result.feedback.failed_calls.map((failed) => [failed.id, failed.tool])).toEqual([
      ['#0', ''],
      ['#1', ''],
    ]);
  });

  it('[CALLID-05] refuses a call whose id is longer than maxCallIdLength without echoing the id', async () => {
    const t = setup({ maxCallIdLength: 8 });
    const result = await t.gate.process([hpCall('c'.repeat(9))], { turn: 1, context: EXPLORING });
    expect(result.feedback.failed_calls[0]).toMatchObject({ id: '#0', code: 'invalid_call' });
    expect(result.feedback.failed_calls[0]?.reason).toContain('longer than 8');
    expect(t.runs).toEqual([]);
  });

  it('refuses a call whose canonical content is larger than maxCallBytes', async () => {
    const t = setup({ maxCallBytes: 100 });
    const big = { ...hpCall('c1'), args: { ...hpCall().args, cause: 'é'.repeat(40) } };
    const result = await t.gate.process([big], { turn: 1, context: EXPLORING });
    expect(result.feedback.failed_calls[0]).toMatchObject({ id: 'c1', code: 'invalid_call' });
    expect(t.runs).toEqual([]);
    const small = await t.gate.process([hpCall('c1')], { turn: 1, context: EXPLORING });
    expect(small.executed).toHaveLength(1);
  });

  it('counts bytes as UTF-8: a call of exactly maxCallBytes passes, one byte more does not', async () => {
    const note = defineTool({
      name: 'n',
      description: 'Notes',
      args: z.object({ s: z.string() }),
      reasons: [],
      execute: () => 1,
    });
    // {"args":{"s":"…"},"tool":"n"} is 28 bytes around the text; 😀 is 4 bytes, é 2, 中 3
    const gate = createToolGate({ tools: [note], allowlist: ['n'], limits: { maxCallBytes: 28 + 9 } });
    const fits = await gate.process([{ id: 'a', tool: 'n', args: { s: '😀é中' } }], {
      turn: 1,
      context: undefined,
    });
    expect(fits.executed).toHaveLength(1);
    const over = await gate.process([{ id: 'b', tool: 'n', args: { s: '😀é中x' } }], {
      turn: 1,
      context: undefined,
    });
    expect(over.feedback.failed_calls[0]?.code).toBe('invalid_call');
  });

  it('counts a result that is not JSON as nothing, as it is kept by reference', async () => {
    const odd = defineTool({
      name: 'odd',
      description: 'Odd',
      args: z.object({}),
      reasons: [],
      execute: () => () => 1,
    });
    const gate = createToolGate({ tools: [odd], allowlist: ['odd'], limits: { maxRememberedBytes: 40 } });
    const result = await gate.process(
      [
        { id: 'a', tool: 'odd', args: {} },
        { id: 'b', tool: 'odd', args: {} },
      ],
      { turn: 1, context: undefined },
    );
    expect(result.executed).toHaveLength(1); // each call is 1 + 22 bytes: the second would pass 40
    expect(result.feedback.failed_calls[0]?.code).toBe('memory_full');
  });

  it('keeps a result whose getter throws by reference, as a result that is not JSON, and answers the batch', async () => {
    const { hostile, runs } = hostileTool();
    const gate = createToolGate({
      tools: [hostile],
      allowlist: ['hostile'],
      limits: { maxRememberedBytes: 40 },
    });
    const call = { id: 'h1', tool: 'hostile', args: {} };
    const first = await gate.process([call], { turn: 1, context: undefined });
    expect(first.executed.map((done) => done.id)).toEqual(['h1']);
    expect(first.feedback.failed_calls).toEqual([]);
    // remembered: the same id is answered from memory, never run twice
    const again = await gate.process([call], { turn: 1, context: undefined });
    expect(again.executed[0]?.replayed).toBe(true);
    expect(runs()).toBe(1);
  });

  it('with a store, runs a call whose result throws when read once: its outcome cannot be stored, so another gate answers outcome_unknown', async () => {
    const { hostile, runs } = hostileTool();
    const store = createMemoryStore();
    const gate = createToolGate({ tools: [hostile], allowlist: ['hostile'], store });
    const stages: string[] = [];
    gate.on('error', ({ stage }) => stages.push(stage));
    const call = { id: 'h1', tool: 'hostile', args: {} };
    const first = await gate.process([call], { turn: 1, context: undefined });
    expect(first.executed.map((done) => done.replayed)).toEqual([false]);
    expect(stages).toEqual(['store']); // the outcome could not be written: the host is told
    const again = await gate.process([call], { turn: 1, context: undefined });
    expect(again.executed.map((done) => done.replayed)).toEqual([true]);
    const restarted = createToolGate({ tools: [hostile], allowlist: ['hostile'], store });
    const elsewhere = await restarted.process([call], { turn: 1, context: undefined });
    expect(elsewhere.feedback.failed_calls.map((failed) => failed.code)).toEqual(['outcome_unknown']);
    expect(runs()).toBe(1);
  });

  it('refuses a call whose arguments are not JSON, as it has no content to be known by', async () => {
    const t = setup();
    const result = await t.gate.process([{ ...hpCall('c1'), args: { delta: Number.NaN } }], {
      turn: 1,
      context: EXPLORING,
    });
    expect(result.feedback.failed_calls[0]).toMatchObject({ code: 'invalid_call' });
    expect(result.feedback.failed_calls[0]?.reason).toContain('not JSON');
  });

  it('[CALLID-05] refuses with memory_full, running nothing, once maxRememberedCalls calls are remembered', async () => {
    const t = setup({ maxRememberedCalls: 2 });
    const first = await t.gate.process([hpCall('a', -1), hpCall('b', -1), hpCall('c', -1)], {
      turn: 1,
      context: EXPLORING,
    });
    expect(first.executed.map((call) => call.id)).toEqual(['a', 'b']);
    expect(first.feedback.failed_calls[0]).toMatchObject({ id: 'c', status: 'error', code: 'memory_full' });
    expect(t.runs).toHaveLength(2);
    // what is remembered still replays; a later turn frees the oldest turns
    expect(
      (await t.gate.process([hpCall('a', -1)], { turn: 1, context: EXPLORING })).executed[0]?.replayed,
    ).toBe(true);
    await t.gate.process([hpCall('x', -1)], { turn: 2, context: EXPLORING });
    const later = await t.gate.process([hpCall('c', -1)], { turn: 3, context: EXPLORING });
    expect(later.executed).toHaveLength(1);
  });

  it('refuses with memory_full once maxRememberedBytes are remembered, counting results', async () => {
    const big = defineTool({
      name: 'big',
      description: 'Returns a large result',
      args: z.object({}),
      reasons: [],
      execute: () => 'r'.repeat(600),
    });
    const gate = createToolGate({ tools: [big], allowlist: ['big'], limits: { maxRememberedBytes: 1_000 } });
    const result = await gate.process(
      [
        { id: 'a', tool: 'big', args: {} },
        { id: 'b', tool: 'big', args: {} },
        { id: 'c', tool: 'big', args: {} },
      ],
      { turn: 1, context: undefined },
    );
    // b fits before it runs; its result takes the total past the cap, so c is refused
    expect(result.executed.map((call) => call.id)).toEqual(['a', 'b']);
    expect(result.feedback.failed_calls[0]).toMatchObject({ id: 'c', code: 'memory_full' });
  });

  it('replays what the store holds without remembering it locally when the memory is full', async () => {
    const store = createMemoryStore();
    const { tools } = createCampaign();
    const writer = createToolGate({ tools, allowlist: ['move', 'hp_delta'], store });
    await writer.process([hpCall('s1', -1)], { turn: 1, context: EXPLORING });
    const t = createCampaign();
    const full = createToolGate({
      tools: t.tools,
      allowlist: ['move', 'hp_delta'],
      store,
      limits: { maxRememberedCalls: 1 },
    });
    await full.process([hpCall('a', -1)], { turn: 1, context: EXPLORING });
    const stored = await full.process([hpCall('s1', -1)], { turn: 1, context: EXPLORING });
    expect(stored.executed[0]).toMatchObject({ id: 's1', replayed: true });
    expect(full.snapshot().turns[0]?.calls.map((call) => call.id)).toEqual(['a']);
    expect(t.runs).toHaveLength(1);
  });

  it('reserves room for calls in flight, so concurrent batches cannot pass maxRememberedCalls', async () => {
    const { slow, release, runs } = createSlowTool();
    const gate = createToolGate({ tools: [slow], allowlist: ['slow'], limits: { maxRememberedCalls: 1 } });
    const a = gate.process([{ id: 'a', tool: 'slow', args: {} }], { turn: 1, context: undefined });
    const b = gate.process([{ id: 'b', tool: 'slow', args: {} }], { turn: 1, context: undefined });
    await new Promise((resolve) => setImmediate(resolve));
    release();
    const [ra, rb] = await Promise.all([a, b]);
    expect(runs()).toBe(1);
    expect(ra.executed).toHaveLength(1);
    expect(rb.feedback.failed_calls[0]?.code).toBe('memory_full');
  });

  it('refuses a snapshot that remembers more than the caps, keeping what it had', async () => {
    const t = setup();
    await t.gate.process([hpCall('a', -1), hpCall('b', -1)], { turn: 1, context: EXPLORING });
    const snapshot = t.gate.snapshot();
    const small = setup({ maxRememberedCalls: 1 });
    await small.gate.process([hpCall('z', -1)], { turn: 1, context: EXPLORING });
    expect(() => small.gate.restore(snapshot)).toThrow(expect.objectContaining({ code: 'invalid_snapshot' }));
    expect(small.gate.snapshot().turns[0]?.calls.map((call) => call.id)).toEqual(['z']);
  });

  it('drops the turns of a restored snapshot that are older than keepTurns', () => {
    const t = setup({}, 2);
    const call = (turn: number) => ({
      id: 'c1',
      record: {
        id: 'c1',
        turn,
        requested: { tool: 'hp_delta', args: {} },
        outcome: 'executed' as const,
        replayed: false,
      },
      executed: { id: 'c1', tool: 'hp_delta', args: {}, result: null, replayed: false },
    });
    t.gate.restore({
      version: 1,
      turns: [5, 1, 4].map((turn) => ({ turn, calls: [call(turn)] })),
      disabled: [],
    });
    expect(t.gate.snapshot().turns.map((entry) => entry.turn)).toEqual([5, 4]);
  });

  it('refuses limits that are not integers of at least 1', () => {
    const { tools } = createCampaign();
    for (const limits of [
      { maxBatchCalls: 0 },
      { maxCallBytes: 1.5 },
      { maxRememberedCalls: Number.NaN },
      3,
    ]) {
      expect(() =>
        createToolGate({ tools, allowlist: ['move', 'hp_delta'], limits: limits as never }),
      ).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    }
    expect(DEFAULT_TOOL_GATE_LIMITS).toEqual({
      maxBatchCalls: 256,
      maxCallIdLength: 256,
      maxCallBytes: 65_536,
      maxRememberedCalls: 10_000,
      maxRememberedBytes: 16_777_216,
    });
  });
});
