import { canonicalJson, isParleyError, parseJson, stringifyJson } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolGate, defineTool, type RememberedCall } from '../src/index.js';

// A remembered call is copied into a snapshot without writing it as JSON text and reading it back;
// the copy must be what that round trip gives, and refuse exactly what it refuses (parseJson's
// default limits: 1 MiB, depth 64, 100 000 values, the keys __proto__, constructor, prototype).

/** A gate whose one tool answers `result`, after one call of it in turn 1. */
async function rememberedWith(result: () => unknown) {
  const answer = defineTool({
    name: 'answer',
    description: 'Answers what it is set to',
    args: z.object({ n: z.number() }),
    reasons: [],
    execute: () => result(),
  });
  const gate = createToolGate({ tools: [answer], allowlist: ['answer'] });
  const args = { n: 1 };
  const batch = await gate.process([{ id: 'c1', tool: 'answer', args }], { turn: 1, context: null });
  const original = {
    id: 'c1',
    record: batch.records[0],
    executed: batch.executed[0],
    content: canonicalJson({ args, tool: 'answer' }),
  };
  return { gate, original };
}

/** What the JSON round trip makes of the remembered call: its copy, or the code it is refused with. */
function roundTrip(original: unknown): { copy: unknown } | { code: string } {
  try {
    return { copy: parseJson(stringifyJson(original)) };
  } catch (error) {
    return { code: isParleyError(error) ? error.code : 'other' };
  }
}

/** The snapshot's copy of the call, or `refused` when snapshot() throws invalid_snapshot. */
function snapshotCopy(gate: Awaited<ReturnType<typeof rememberedWith>>['gate']): RememberedCall | 'refused' {
  try {
    return gate.snapshot().turns[0]?.calls[0] as RememberedCall;
  } catch (error) {
    if (isParleyError(error, 'invalid_snapshot')) return 'refused';
    throw error;
  }
}

/** Asserts the snapshot agrees with the round trip; answers whether the round trip accepted. */
async function agrees(result: () => unknown): Promise<boolean> {
  const { gate, original } = await rememberedWith(result);
  const expected = roundTrip(original);
  const copy = snapshotCopy(gate);
  if ('code' in expected) {
    expect(copy).toBe('refused');
    return false;
  }
  expect(copy).toStrictEqual(expected.copy);
  expect(JSON.stringify(copy)).toBe(JSON.stringify(expected.copy)); // the same key order
  return true;
}

const nested = (levels: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
};

describe('a snapshot copy is what a JSON round trip gives', () => {
  it('writes -0 as 0, drops undefined properties, keeps key order and lone surrogates', async () => {
    const odd = Object.create(null) as Record<string, unknown>;
    odd['z'] = 1;
    const cases: (() => unknown)[] = [
      () => ({ zero: -0, list: [-0, 1.5, -1.2345678901234567e-6], text: 'a\u0000"\\\ud800é😀' }),
      () => ({ kept: 1, dropped: undefined, nested: { gone: undefined } }),
      () => ({ b: 1, 2: 'two', a: 1, 1: 'one' }),
      () => odd,
      () => [1, 'x', null, true, false, { y: [] }],
      () => 'text',
      () => null,
      () => ({ toJSON: 'not a function', value: 1 }),
    ];
    for (const result of cases) expect(await agrees(result)).toBe(true);
  });

  it('refuses what the round trip refuses: forbidden keys, values that are not JSON', async () => {
    const cases: (() => unknown)[] = [
      () => ({ constructor: 1 }),
      () => ({ deep: [{ prototype: 'x' }] }),
      () => parseJson('{"ok":1}') && JSON.parse('{"__proto__":{"polluted":true}}'),
      () => ({ when: new Date(0) }),
      () => ({ list: [1, undefined] }),
      () => ({ holes: new Array<number>(3) }), // three holes
      () => ({ toJSON: () => 'x' }),
      () => ({ n: Number.NaN }),
      () => ({ big: 1n }),
      () => {
        let reads = 0; // read once when the call is remembered, then it throws
        return Object.defineProperty({}, 'broken', {
          enumerable: true,
          get: () => {
            reads++;
            if (reads > 1) throw new Error('no value');
            return 1;
          },
        });
      },
      () => {
        const cycle: Record<string, unknown> = {};
        cycle['self'] = cycle;
        return cycle;
      },
    ];
    for (const result of cases) expect(await agrees(result)).toBe(false);
  });

  it('agrees with the round trip on what JSON.stringify sees and a walk of keys does not', async () => {
    const hidden = { shown: 1 };
    Object.defineProperty(hidden, 'toJSON', { value: () => ({ written: 'by toJSON' }), enumerable: false });
    class Listed extends Array<number> {
      toJSON(): string {
        return 'listed';
      }
    }
    const listed = Listed.from([1, 2]);
    expect(await agrees(() => ({ hidden }))).toBe(true);
    expect(await agrees(() => ({ listed }))).toBe(true);
    expect(await agrees(() => ({ list: Array.from([1, 2]) }))).toBe(true);
  });

  it('agrees with the round trip while Object.prototype has an enumerable key', async () => {
    Object.defineProperty(Object.prototype, 'polluted', {
      value: 'x',
      enumerable: true,
      configurable: true,
      writable: true,
    });
    try {
      expect(await agrees(() => ({ a: 1, b: { c: [1, 2] } }))).toBe(roundTripAccepts());
    } finally {
      Reflect.deleteProperty(Object.prototype, 'polluted');
    }
  });

  it('refuses at exactly the depth the round trip refuses at', async () => {
    // the call (depth 1) holds `executed` (2), which holds the result's outermost object (3)
    const accepted: boolean[] = [];
    for (const levels of [61, 62, 63, 64]) accepted.push(await agrees(() => nested(levels)));
    expect(accepted).toEqual([true, true, false, false]);
  });

  it('refuses at exactly the number of values the round trip refuses at', async () => {
    const { original } = await rememberedWith(() => []);
    const around = 100_000 - countValues(original); // the result's items that reach the limit
    const accepted: boolean[] = [];
    for (const items of [around - 1, around, around + 1, around + 2]) {
      accepted.push(await agrees(() => new Array<null>(items).fill(null)));
    }
    expect(accepted).toEqual([true, true, false, false]);
  });

  it('refuses at exactly the byte the round trip refuses at, for text JSON writes long', async () => {
    const { original } = await rememberedWith(() => '');
    const room = 1024 * 1024 - Buffer.byteLength(JSON.stringify(original), 'utf8'); // bytes left for the text
    for (const [unit, bytes] of [
      ['a', 1],
      ['é', 2],
      ['\u0001', 6],
    ] as const) {
      const fits = unit.repeat(Math.floor(room / bytes));
      const extra = room % bytes === 0 ? `${fits}a` : `${fits}${'a'.repeat((room % bytes) + 1)}`;
      expect(await agrees(() => `${fits}${'a'.repeat(room % bytes)}`)).toBe(true);
      expect(await agrees(() => extra)).toBe(false);
    }
  });
});

/** Whether the round trip accepts a plain value now (it refuses none unless Object.prototype is changed). */
function roundTripAccepts(): boolean {
  return 'copy' in roundTrip({ a: 1 });
}

function countValues(value: unknown): number {
  if (typeof value !== 'object' || value === null) return value === undefined ? 0 : 1;
  return 1 + Object.values(value).reduce((sum: number, item) => sum + countValues(item), 0);
}

describe('a refused restore', () => {
  it('keeps the memory and its shared copies as they were', async () => {
    const echo = defineTool({
      name: 'echo',
      description: 'Answers its arguments',
      args: z.object({ n: z.number() }),
      reasons: [],
      execute: (args) => args,
    });
    const gate = createToolGate({ tools: [echo], allowlist: ['echo'], limits: { maxRememberedCalls: 2 } });
    const other = createToolGate({ tools: [echo], allowlist: ['echo'] });
    const run = { turn: 1, context: null };
    await gate.process([{ id: 'a', tool: 'echo', args: { n: 1 } }], run);
    const first = gate.snapshot();
    await gate.process([{ id: 'b', tool: 'echo', args: { n: 2 } }], run); // not in a snapshot yet
    await other.process(
      [
        { id: 'x', tool: 'echo', args: { n: 3 } },
        { id: 'y', tool: 'echo', args: { n: 4 } },
      ],
      run,
    );
    const own = first.turns[0]?.calls ?? [];
    const foreign = other.snapshot().turns[0]?.calls ?? [];
    const tooMany = { ...first, turns: [{ turn: 1, calls: [...own, ...foreign] }] };
    expect(() => gate.restore(tooMany)).toThrow(expect.objectContaining({ code: 'invalid_snapshot' }));
    const after = gate.snapshot();
    expect(after.turns[0]?.calls.map((call) => call.id)).toEqual(['a', 'b']);
    expect(after.turns[0]?.calls[0]).toBe(own[0]);
    gate.restore(after);
    const again = await gate.process(
      [
        { id: 'a', tool: 'echo', args: { n: 1 } },
        { id: 'b', tool: 'echo', args: { n: 2 } },
      ],
      run,
    );
    expect(again.executed.map((call) => [call.id, call.replayed])).toEqual([
      ['a', true],
      ['b', true],
    ]);
    expect(gate.snapshot()).toStrictEqual(after);
  });
});
