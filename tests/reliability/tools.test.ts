import { fc, it as fcIt } from '@fast-check/vitest';
import { isParleyError } from '@parley/core';
import { createToolGate, defineTool, type ToolCallProposal } from '@parley/tools';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { cite } from './catalogue.js';
import { runs } from './config.js';
import { type Bot, startBot } from './routing.harness.js';

// Rule 7: tool names are matched exactly against canonical names in a Map, and a side effect runs
// at most once per call id per turn, across retries and concurrent batches. Rule 8 for tools: the
// model cannot make a destructive tool run without the person's exact consent.

function tools() {
  const effects: string[] = [];
  let failNext = 0;
  const move = defineTool({
    name: 'move',
    description: 'Moves the piece',
    args: z.object({ to: z.string() }),
    reasons: ['blocked'],
    execute: (args, context) => {
      effects.push(`move:${args.to}:${context.call.id}`);
      if (failNext > 0) {
        failNext--;
        throw new Error('the table fell over');
      }
      return { at: args.to };
    },
  });
  const dropTable = defineTool({
    name: 'drop_table',
    description: 'Drops a table',
    args: z.object({ table: z.string() }),
    reasons: ['protected'],
    confirm: true,
    execute: (args) => {
      effects.push(`drop:${args.table}`);
      return { dropped: args.table };
    },
  });
  return { move, dropTable, effects, failNextExecutions: (n: number) => (failNext = n) };
}

describe('tool names (rule 7)', () => {
  it(`${cite('TOOL-01')} refuses Object.prototype member names as unknown tools and runs nothing`, async () => {
    const t = tools();
    const gate = createToolGate({ tools: [t.move], allowlist: ['move'] });
    const names = [
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
      'valueOf',
      'isPrototypeOf',
      'prototype',
    ];
    const calls = names.map((tool, i) => ({ id: `c${i}`, tool, args: { to: 'x' } }));
    const { executed, feedback } = await gate.process(calls, { turn: 1, context: undefined });
    expect(executed).toEqual([]);
    expect(feedback.failed_calls.map((f) => f.code)).toEqual(names.map(() => 'unknown_tool'));
    expect(t.effects).toEqual([]);
  });

  it(`${cite('TOOL-02')} matches names exactly: case, width, format characters and look-alikes are unknown`, async () => {
    const t = tools();
    const gate = createToolGate({ tools: [t.move], allowlist: ['move'] });
    const variants = [
      'Move',
      'MOVE',
      'ｍｏｖｅ',
      'mo\u200bve',
      ' move',
      'move ',
      'mоve',
      'move\u0000',
      'move.',
    ];
    const calls = variants.map((tool, i) => ({ id: `c${i}`, tool, args: { to: 'x' } }));
    const { executed, feedback } = await gate.process(calls, { turn: 1, context: undefined });
    expect(executed).toEqual([]);
    expect(feedback.failed_calls.map((f) => f.code)).toEqual(variants.map(() => 'unknown_tool'));
    const ok = await gate.process([{ id: 'c_ok', tool: 'move', args: { to: 'x' } }], {
      turn: 1,
      context: undefined,
    });
    expect(ok.executed).toHaveLength(1);
  });
});

describe('at most once per call id and turn (rule 7)', () => {
  it(`${cite('TOOL-03')} replays the recorded outcome when the same call id comes again in the turn`, async () => {
    const t = tools();
    const gate = createToolGate({ tools: [t.move], allowlist: ['move'] });
    const call = { id: 'call_1', tool: 'move', args: { to: 'vault' } };
    const first = await gate.process([call], { turn: 3, context: undefined });
    const second = await gate.process([call], { turn: 3, context: undefined });
    const changed = await gate.process([{ ...call, args: { to: 'hall' } }], { turn: 3, context: undefined });
    expect(first.executed).toMatchObject([{ id: 'call_1', replayed: false }]);
    expect(second.executed).toMatchObject([{ id: 'call_1', replayed: true, result: { at: 'vault' } }]);
    expect(changed.executed).toEqual([]);
    expect(changed.feedback.failed_calls).toMatchObject([{ id: 'call_1', code: 'call_id_reused' }]);
    expect(t.effects).toEqual(['move:vault:call_1']);
    const nextTurn = await gate.process([call], { turn: 4, context: undefined });
    expect(nextTurn.executed).toMatchObject([{ replayed: false }]);
    expect(t.effects).toHaveLength(2);
  });

  it(`${cite('TOOL-04')} does not run again a call whose executor threw, when the retry proposes the same id`, async () => {
    const t = tools();
    t.failNextExecutions(1);
    const gate = createToolGate({ tools: [t.move], allowlist: ['move'] });
    const call = { id: 'call_7', tool: 'move', args: { to: 'vault' } };
    const first = await gate.process([call], { turn: 1, context: undefined });
    expect(first.feedback.failed_calls).toMatchObject([{ code: 'executor_error', status: 'error' }]);
    for (let retry = 0; retry < 3; retry++) {
      const again = await gate.process([call], { turn: 1, context: undefined });
      expect(again.feedback.failed_calls).toMatchObject([{ code: 'executor_error' }]);
      expect(again.executed).toEqual([]);
    }
    expect(t.effects).toEqual(['move:vault:call_7']);
  });

  it(`${cite('TOOL-05')} runs a call id once when concurrent batches carry it`, async () => {
    const t = tools();
    const gate = createToolGate({ tools: [t.move], allowlist: ['move'] });
    const call = { id: 'call_9', tool: 'move', args: { to: 'vault' } };
    const results = await Promise.all(
      Array.from({ length: 8 }, () => gate.process([call], { turn: 2, context: undefined })),
    );
    expect(t.effects).toEqual(['move:vault:call_9']);
    expect(results.flatMap((r) => r.executed).filter((e) => !e.replayed)).toHaveLength(1);
    const duplicates = await gate.process([call, { ...call }], { turn: 5, context: undefined });
    expect(duplicates.feedback.failed_calls.map((f) => f.code)).toEqual([
      'duplicate_call_id',
      'duplicate_call_id',
    ]);
    expect(t.effects).toHaveLength(1);
  });

  fcIt.prop(
    [
      fc.array(
        fc.tuple(
          fc.integer({ min: 1, max: 4 }),
          fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { minLength: 1, maxLength: 4 }),
          fc.boolean(),
        ),
        { minLength: 1, maxLength: 12 },
      ),
    ],
    { numRuns: runs(150) },
  )(
    `${cite('TOOL-06')} runs each (turn, call id) at most once over any sequence of batches, failures included`,
    async (batches) => {
      const t = tools();
      const gate = createToolGate({ tools: [t.move], allowlist: ['move'], keepTurns: 10 });
      for (const [turn, ids, fail] of batches) {
        if (fail) t.failNextExecutions(1);
        const calls: ToolCallProposal[] = ids.map((id) => ({ id, tool: 'move', args: { to: `t${turn}` } }));
        await gate.process(calls, { turn, context: undefined });
      }
      const runsPerKey = new Map<string, number>();
      for (const effect of t.effects) {
        const [, to, id] = effect.split(':');
        const key = `${to}:${id}`;
        runsPerKey.set(key, (runsPerKey.get(key) ?? 0) + 1);
      }
      for (const [key, count] of runsPerKey) expect(count, key).toBe(1);
    },
  );
});

describe('destructive tools need the exact consent of the right person (rules 2, 8)', () => {
  let bot: Bot;
  afterEach(async () => {
    await bot?.gate.close();
    bot?.bus.close();
  });

  it(`${cite('TOOL-07')} never runs a destructive call on the model's own words, another user's answer or a stale one`, async () => {
    bot = await startBot();
    const t = tools();
    const gate = createToolGate({ tools: [t.dropTable], allowlist: ['drop_table'], confirm: bot.gate });
    const prompted = new Promise<void>((resolve) => bot.gate.on('prompted', () => resolve()));
    const batch = gate.process([{ id: 'call_1', tool: 'drop_table', args: { table: 'orders' } }], {
      turn: 1,
      context: undefined,
      sessionKey: 'feishu:g1',
      requester: 'alice',
    });
    await prompted;
    await bot.bus.publishOutbound({ channel: 'feishu', chatId: 'g1', text: '确认' }); // the model "confirms"
    await bot.channel.say('g1', 'alice', '确认', { fromSelf: true, senderIsBot: true }); // echoed back
    await bot.channel.say('g1', 'bob', '确认'); // not the requester
    await bot.channel.say('g1', 'alice', '确认？'); // a question
    const result = await batch;
    expect(result.executed).toEqual([]);
    expect(result.feedback.failed_calls).toMatchObject([{ code: 'confirmation_declined' }]);
    expect(t.effects).toEqual([]);
  });

  it(`${cite('TOOL-07')} runs a destructive call once on the requester's exact 确认`, async () => {
    bot = await startBot();
    const t = tools();
    const gate = createToolGate({ tools: [t.dropTable], allowlist: ['drop_table'], confirm: bot.gate });
    const prompted = new Promise<void>((resolve) => bot.gate.on('prompted', () => resolve()));
    const run = { turn: 1, context: undefined, sessionKey: 'feishu:g1', requester: 'alice' };
    const call = { id: 'call_1', tool: 'drop_table', args: { table: 'orders' } };
    const batch = gate.process([call], run);
    await prompted;
    await bot.channel.say('g1', 'alice', '确认');
    expect((await batch).executed).toHaveLength(1);
    expect((await gate.process([call], run)).executed).toMatchObject([{ replayed: true }]);
    expect(t.effects).toEqual(['drop:orders']);
  });

  it(`${cite('LIFE-06')} refuses an insane confirmTimeoutMs when the batch is registered`, async () => {
    bot = await startBot();
    const t = tools();
    const gate = createToolGate({ tools: [t.dropTable], allowlist: ['drop_table'], confirm: bot.gate });
    for (const confirmTimeoutMs of [Number.NaN, Number.POSITIVE_INFINITY, 0, -1, 2 ** 31]) {
      const batch = gate.process([{ id: 'c', tool: 'drop_table', args: { table: 'orders' } }], {
        turn: 1,
        context: undefined,
        sessionKey: 'feishu:g1',
        requester: 'alice',
        confirmTimeoutMs,
      });
      await expect(batch).rejects.toSatisfy((error: unknown) => isParleyError(error, 'invalid_timeout'));
    }
    expect(bot.channel.sent).toEqual([]);
    expect(t.effects).toEqual([]);
  });
});

describe('a tool call is its id and its content (issue 19 §2, principles 8 and 9)', () => {
  function ledger() {
    const runs: { turn: number; id: string; v: number }[] = [];
    const set = defineTool({
      name: 'set',
      description: 'Sets a value',
      args: z.object({ v: z.number() }),
      reasons: [],
      execute: (args, context) => {
        runs.push({ turn: context.turn, id: context.call.id, v: args.v });
        return { v: args.v };
      },
    });
    return { set, runs };
  }

  it(`${cite('CALLID-01')} refuses call_001 reused for a move after an hp_delta in turn 7, running and replaying nothing`, async () => {
    const effects: string[] = [];
    const hpDelta = defineTool({
      name: 'hp_delta',
      description: 'Changes hit points',
      args: z.object({ delta: z.number() }),
      reasons: [],
      execute: (args) => effects.push(`hp:${args.delta}`),
    });
    const move = defineTool({
      name: 'move',
      description: 'Moves',
      args: z.object({ to: z.string() }),
      reasons: [],
      execute: (args) => effects.push(`move:${args.to}`),
    });
    const gate = createToolGate({ tools: [hpDelta, move], allowlist: ['hp_delta', 'move'] });
    const context = { state: 'exploring' };
    await gate.process([{ id: 'call_001', tool: 'hp_delta', args: { delta: -5 } }], { turn: 7, context });
    const r = await gate.process([{ id: 'call_001', tool: 'move', args: { to: 'vault' } }], {
      turn: 7,
      context,
    });
    expect(r.executed).toEqual([]);
    expect(r.feedback.failed_calls).toMatchObject([{ id: 'call_001', tool: 'move', code: 'call_id_reused' }]);
    expect(effects).toEqual(['hp:-5']);
    const reissued = await gate.process([{ id: 'call_002', tool: 'move', args: { to: 'vault' } }], {
      turn: 7,
      context,
    });
    expect(reissued.executed).toMatchObject([{ id: 'call_002', replayed: false }]);
    expect(effects).toEqual(['hp:-5', 'move:vault']);
  });

  fcIt.prop(
    [
      fc.array(
        fc.tuple(
          fc.integer({ min: 1, max: 3 }),
          fc.uniqueArray(fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.integer({ min: 0, max: 2 })), {
            minLength: 1,
            maxLength: 3,
            selector: ([id]) => id,
          }),
          fc.boolean(),
        ),
        { minLength: 1, maxLength: 10 },
      ),
    ],
    { numRuns: runs(150) },
  )(
    `${cite('CALLID-04')} runs each (turn, id) once with its first content and answers a later proposal by its content`,
    async (batches) => {
      const t = ledger();
      const gate = createToolGate({ tools: [t.set], allowlist: ['set'], keepTurns: 10 });
      const answers: { turn: number; id: string; v: number; code: string; result?: unknown }[] = [];
      const deliver = async (turn: number, calls: readonly (readonly [string, number])[]) => {
        const proposals = calls.map(([id, v]) => ({ id, tool: 'set', args: { v } }));
        const result = await gate.process(proposals, { turn, context: undefined });
        for (const [id, v] of calls) {
          const executed = result.executed.find((call) => call.id === id);
          const failed = result.feedback.failed_calls.find((call) => call.id === id);
          answers.push({
            turn,
            id,
            v,
            code: executed ? 'executed' : (failed?.code ?? 'none'),
            result: executed?.result,
          });
        }
      };
      for (const [turn, calls, twice] of batches) {
        await (twice ? Promise.all([deliver(turn, calls), deliver(turn, calls)]) : deliver(turn, calls));
      }
      const ran = new Map<string, number>();
      for (const run of t.runs) {
        const key = `${run.turn}:${run.id}`;
        expect(ran.has(key), key).toBe(false); // at most once per (turn, id)
        ran.set(key, run.v);
      }
      for (const answer of answers) {
        const first = ran.get(`${answer.turn}:${answer.id}`);
        expect(first, `${answer.turn}:${answer.id}`).toBeDefined(); // the first proposal of each key ran
        if (answer.v === first) expect(answer).toMatchObject({ code: 'executed', result: { v: first } });
        else expect(answer.code).toBe('call_id_reused'); // never another content's result
      }
    },
  );
});
