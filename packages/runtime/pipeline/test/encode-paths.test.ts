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
