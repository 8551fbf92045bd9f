import { canonicalJson } from '@parley/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolGate, defineTool, type ToolGateSnapshot } from '../src/index.js';

// A call's content is measured when it comes in and written only when something needs it (an id
// that comes again, a snapshot, a store): these pin what that must not change.

const bytesOf = (value: unknown): number => Buffer.byteLength(canonicalJson(value), 'utf8');

function echoGate(limits: { maxCallBytes?: number; maxRememberedBytes?: number } = {}) {
  const runs: unknown[] = [];
  const echo = defineTool({
    name: 'echo',
    description: 'Answers its arguments',
    args: z.record(z.string(), z.unknown()),
    reasons: [],
    execute: (args) => {
      runs.push(args);
      return args;
    },
  });
  const gate = createToolGate({ tools: [echo], allowlist: ['echo'], limits });
  return { gate, runs };
}

/** JSON objects with every kind of text JSON escapes or encodes long: quotes, controls, surrogates. */
const jsonArgs = fc.dictionary(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' }),
  { maxKeys: 6 },
);

describe('the caps are checked on exact lengths', () => {
  it('passes a call of exactly maxCallBytes and refuses one of a byte less, for any JSON arguments', async () => {
    await fc.assert(
      fc.asyncProperty(jsonArgs, async (args) => {
        const bytes = bytesOf({ args, tool: 'echo' });
        const fits = echoGate({ maxCallBytes: bytes });
        const passed = await fits.gate.process([{ id: 'a', tool: 'echo', args }], { turn: 1, context: null });
        expect(passed.feedback.failed_calls).toEqual([]);
        const over = echoGate({ maxCallBytes: bytes - 1 });
        const refused = await over.gate.process([{ id: 'a', tool: 'echo', args }], {
          turn: 1,
          context: null,
        });
        expect(refused.feedback.failed_calls[0]?.code).toBe('invalid_call');
        expect(over.runs).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });

  it('fails closed on a call whose escapes make it larger than it has characters', async () => {
    const args = { s: '\u0001'.repeat(10) }; // 10 characters, written as 60 bytes of \u0001
    const bytes = bytesOf({ args, tool: 'echo' });
    const { gate, runs } = echoGate({ maxCallBytes: bytes - 1 });
    const result = await gate.process([{ id: 'a', tool: 'echo', args }], { turn: 1, context: null });
    expect(result.feedback.failed_calls[0]?.reason).toContain(`larger than ${bytes - 1} bytes`);
    expect(runs).toEqual([]);
  });

  it('counts ids, contents and results exactly against maxRememberedBytes, however large', async () => {
    const args = { note: 'é'.repeat(2_000) }; // 4 000 bytes, counted as 2 000 characters × 6 at first
    const one = 1 + bytesOf({ args, tool: 'echo' }) + bytesOf(args); // id, content, result
    const { gate, runs } = echoGate({ maxRememberedBytes: 2 * one });
    const calls = ['a', 'b', 'c'].map((id) => ({ id, tool: 'echo', args }));
    const result = await gate.process(calls, { turn: 1, context: null });
    expect(result.executed.map((call) => call.id)).toEqual(['a', 'b']);
    expect(result.feedback.failed_calls[0]).toMatchObject({ id: 'c', code: 'memory_full' });
    expect(runs).toHaveLength(2);
  });
});

describe('a reused id is compared on its content', () => {
  it('refuses a reused id whose arguments have the same length but other text', async () => {
    const { gate, runs } = echoGate();
    await gate.process([{ id: 'a', tool: 'echo', args: { s: 'abcd' } }], { turn: 1, context: null });
    const again = await gate.process([{ id: 'a', tool: 'echo', args: { s: 'abce' } }], {
      turn: 1,
      context: null,
    });
    expect(again.feedback.failed_calls[0]?.code).toBe('call_id_reused');
    const same = await gate.process([{ id: 'a', tool: 'echo', args: { s: 'abcd' } }], {
      turn: 1,
      context: null,
    });
    expect(same.executed[0]?.replayed).toBe(true);
    expect(runs).toEqual([{ s: 'abcd' }]);
  });

  it('refuses a reused id with other content in a gate restored from a snapshot taken before the text was needed', async () => {
    const first = echoGate();
    await first.gate.process([{ id: 'a', tool: 'echo', args: { b: 1, a: 2 } }], { turn: 1, context: null });
    const copy = JSON.parse(JSON.stringify(first.gate.snapshot())) as ToolGateSnapshot;
    expect(copy.turns[0]?.calls[0]?.content).toBe('{"args":{"a":2,"b":1},"tool":"echo"}');
    const second = echoGate();
    second.gate.restore(copy);
    const other = await second.gate.process([{ id: 'a', tool: 'echo', args: { a: 2, b: 2 } }], {
      turn: 1,
      context: null,
    });
    expect(other.feedback.failed_calls[0]?.code).toBe('call_id_reused');
    const same = await second.gate.process([{ id: 'a', tool: 'echo', args: { a: 2, b: 1 } }], {
      turn: 1,
      context: null,
    });
    expect(same.executed[0]?.replayed).toBe(true);
    expect(second.runs).toEqual([]);
  });
});

describe('snapshots are written incrementally', () => {
  it('gives after N turns of snapshot and restore the snapshot a gate restored from JSON copies gives', async () => {
    const shared = echoGate();
    const copied = echoGate();
    for (let turn = 1; turn <= 6; turn++) {
      const calls = [
        { id: `c${turn}`, tool: 'echo', args: { turn, text: `t${turn}` } },
        { id: 'fixed', tool: 'echo', args: { turn } },
      ];
      await shared.gate.process(calls, { turn, context: null });
      await copied.gate.process(calls, { turn, context: null });
      // the turn runner's pattern: snapshot, then put the snapshot (or its copy) back
      shared.gate.restore(shared.gate.snapshot());
      copied.gate.restore(JSON.parse(JSON.stringify(copied.gate.snapshot())) as ToolGateSnapshot);
    }
    expect(shared.gate.snapshot()).toEqual(copied.gate.snapshot());
    expect(shared.gate.snapshot().turns.map((t) => t.turn)).toEqual([5, 6]);
    const replay = await shared.gate.process([{ id: 'fixed', tool: 'echo', args: { turn: 6 } }], {
      turn: 6,
      context: null,
    });
    expect(replay.executed[0]).toMatchObject({ replayed: true, result: { turn: 6 } });
  });

  it('shares each remembered call between snapshots, frozen, so a later snapshot cannot be changed through an earlier one', async () => {
    const { gate } = echoGate();
    await gate.process([{ id: 'a', tool: 'echo', args: { x: 1 } }], { turn: 1, context: null });
    const before = gate.snapshot();
    const call = before.turns[0]?.calls[0];
    expect(Object.isFrozen(call?.record)).toBe(true);
    expect(() => {
      (call?.executed as { result: unknown }).result = 'changed';
    }).toThrow(TypeError);
    await gate.process([{ id: 'b', tool: 'echo', args: { x: 2 } }], { turn: 1, context: null });
    const after = gate.snapshot();
    expect(after.turns[0]?.calls[0]).toBe(call);
    expect(after.turns[0]?.calls.map((c) => c.executed?.result)).toEqual([{ x: 1 }, { x: 2 }]);
  });

  it('still checks a snapshot that mixes its own calls with calls from elsewhere', async () => {
    const { gate } = echoGate();
    await gate.process([{ id: 'a', tool: 'echo', args: {} }], { turn: 1, context: null });
    const own = gate.snapshot();
    const forged = {
      ...own,
      turns: [{ turn: 1, calls: [...(own.turns[0]?.calls ?? []), { id: 'b', record: {} }] }],
    } as unknown as ToolGateSnapshot;
    expect(() => gate.restore(forged)).toThrow(expect.objectContaining({ code: 'invalid_snapshot' }));
    const moved = { ...own, turns: [{ turn: 2, calls: own.turns[0]?.calls ?? [] }] };
    expect(() => gate.restore(moved)).toThrow(expect.objectContaining({ code: 'invalid_snapshot' }));
  });
});

describe('what a call is read as', () => {
  it('reads only own keys, as canonicalJson does, even when Object.prototype has an enumerable key', async () => {
    const note = defineTool({
      name: 'note',
      description: 'Notes',
      args: z.object({ s: z.string() }),
      reasons: [],
      execute: ({ s }) => s,
    });
    const gate = createToolGate({ tools: [note], allowlist: ['note'], limits: { maxCallBytes: 64 } });
    Object.defineProperty(Object.prototype, 'polluted', {
      value: () => 'x'.repeat(100),
      enumerable: true,
      configurable: true,
      writable: true,
    });
    try {
      const result = await gate.process([{ id: 'a', tool: 'note', args: { s: 'hi' } }], {
        turn: 1,
        context: null,
      });
      expect(result.executed.map((call) => call.result)).toEqual(['hi']);
    } finally {
      Reflect.deleteProperty(Object.prototype, 'polluted');
    }
  });
});

describe('the longest numbers', () => {
  it('refuses a call one byte over maxCallBytes whose arguments are numbers written in 25 characters', async () => {
    const longest = -1.2345678901234567e-6; // written -0.0000012345678901234567
    expect(String(longest)).toHaveLength(25);
    const args = { '': new Array<number>(200).fill(longest) }; // no text whose bound has room to spare
    const bytes = bytesOf({ args, tool: 'echo' });
    const { gate, runs } = echoGate({ maxCallBytes: bytes - 1 });
    const result = await gate.process([{ id: 'a', tool: 'echo', args }], { turn: 1, context: null });
    expect(result.feedback.failed_calls[0]?.code).toBe('invalid_call');
    expect(runs).toEqual([]);
  });
});
