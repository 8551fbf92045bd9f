import { createManualClock, createMemoryStore } from '@parley/core';
import { describe, expect, it } from 'vitest';
import {
  createPipelineRunner,
  definePipeline,
  type NodeContext,
  RUN_RECORD,
  type RunRecord,
} from '../src/index.js';

const header = (extra: Record<string, unknown>): RunRecord =>
  ({ v: 1, name: 'p', digest: 'd', status: 'running', createdAt: 5, ...extra }) as unknown as RunRecord;

describe('the run header codec', () => {
  it('encodes a header as its JSON text reads back, whatever its fields hold', () => {
    const odd = [
      header({}),
      header({ endedAt: undefined, input: undefined }),
      header({ endedAt: 9, status: 'succeeded' }),
      header({ input: { market: 'BTC', skip: undefined, when: new Date(0), list: [1, undefined] } }),
      header({ input: 'text' }),
      header({ createdAt: Number.NaN }),
      header({ createdAt: -0 }),
      header({ extra: true, more: null }),
      { ...header({}), toJSON: () => ({ v: 1, swapped: true }) } as unknown as RunRecord,
    ];
    for (const value of odd) {
      const encoded = RUN_RECORD.encode(value);
      expect(encoded).toStrictEqual(JSON.parse(JSON.stringify(value)));
      expect(JSON.stringify(encoded)).toBe(JSON.stringify(value));
    }
  });
});

describe('the context a node works with', () => {
  it('lists its fields in one order, its signal read when asked for', async () => {
    const seen: string[][] = [];
    const runner = createPipelineRunner({
      store: createMemoryStore(),
      clock: createManualClock(),
      work: (ctx: NodeContext) => {
        seen.push(Object.keys(ctx));
        expect(ctx.signal.aborted).toBe(false);
        return { node: ctx.node.id };
      },
    });
    const pipeline = definePipeline({ name: 'one', nodes: [{ id: 'a', kind: 'task', agent: 'w' }] });
    const result = await runner.start(pipeline, { runId: 'r1', input: { x: 1 } });
    expect(result.ok && result.status).toBe('succeeded');
    expect(seen).toEqual([
      ['runId', 'node', 'attempt', 'spawnId', 'input', 'outputs', 'retry', 'revision', 'tools', 'signal'],
    ]);
  });
});

const deep = (levels: number): unknown => (levels === 0 ? 'deep' : [deep(levels - 1)]);

describe('the output a node stores', () => {
  const odd: unknown[] = [
    { node: 'intel' },
    'text',
    7,
    -0,
    Number.NaN,
    null,
    undefined,
    true,
    [1, undefined, () => 1, Number.POSITIVE_INFINITY, { a: undefined }],
    { nested: { list: [{ x: 1 }, 'y'], skip: undefined, fn: () => 1 }, 2: 'two', 1: 'one' },
    { when: new Date(0), map: new Map([[1, 2]]), set: new Set([1]) },
    JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}'),
    { toJSON: () => ({ swapped: true }) },
    Object.assign(Object.create(null) as object, { bare: 1 }),
    Object.assign(Object.create({ inherited: 1 }) as object, { own: 1 }),
    { sym: Symbol('s'), [Symbol('k')]: 1, kept: 'yes' },
    deep(80),
  ];

  it('is what its JSON text reads back as, a copy the work cannot change later', async () => {
    for (const value of odd) {
      const result = await runOne(value);
      const output = result.ok ? result.nodes['a']?.output : 'refused';
      expect(output).toStrictEqual(JSON.parse(JSON.stringify(value ?? null)));
      if (typeof value === 'object' && value !== null) expect(output).not.toBe(value);
    }
  });

  it('refuses what has no JSON text: a cycle, a BigInt', async () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle['self'] = cycle;
    for (const value of [cycle, { big: 1n }, [1n]]) {
      const result = await runOne(value);
      expect(result.ok && result.nodes['a']?.reason).toMatch(/not JSON/);
    }
  });
});

/** Runs a one-node pipeline whose work returns `value`, on a fresh memory store. */
function runOne(value: unknown) {
  const runner = createPipelineRunner({
    store: createMemoryStore(),
    clock: createManualClock(),
    work: () => value,
  });
  const pipeline = definePipeline({ name: 'one', nodes: [{ id: 'a', kind: 'task', agent: 'w' }] });
  return runner.start(pipeline, { runId: 'r1' });
}
