import { createManualClock, createMemoryStore, isParleyError, type Store } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createReviewGate, type ReviewVerdict } from '../src/index.js';
import { answers, rejection } from './helpers.js';

const revise: ReviewVerdict = {
  verdict: 'revise',
  revise_target: 'quant_strategist',
  issues: [{ severity: 'major', field: 'stop_loss', description: 'Stop loss above entry' }],
};
const pass: ReviewVerdict = { verdict: 'pass' };
/** The kernel record of a revise count, as the store holds it. */
const ROUNDS = { kind: 'parley.conflict.rounds', version: 1, lease: null, fence: 0, deadlineAt: null };

/** A reviewer answering from a list, recording how many rounds it was told were used. */
function reviewer(...verdicts: ReviewVerdict[]) {
  const seen: number[] = [];
  const review = (_output: unknown, context: { revisions: number }): ReviewVerdict => {
    seen.push(context.revisions);
    const next = verdicts.shift();
    if (next === undefined) throw new Error('unscripted review');
    return next;
  };
  return Object.assign(review, { seen });
}

const drafts = (n: number) => answers(...Array.from({ length: n }, (_, i) => ({ draft: i + 1 })));

describe('a review gate whose revise count lives with the task in a store', () => {
  it('[EFFECT-05] escalates on the next revise after a restart that followed 3 revise rounds', async () => {
    const store = createMemoryStore();
    const controller = new AbortController();
    const first = createReviewGate({ review: reviewer(revise, revise, revise), store });
    first.on('attempt', ({ record }) => {
      if (record.retries === 3) controller.abort(new Error('pipeline restarted'));
    });
    const crashed = await rejection(
      first.run({
        input: 'brief',
        taskId: 'quant-2026-04-10:converge',
        generate: drafts(4),
        signal: controller.signal,
      }),
    );
    expect(isParleyError(crashed, 'cancelled')).toBe(true);

    const review = reviewer(revise);
    const generate = drafts(1);
    const restarted = createReviewGate({ review, store }); // a new instance, the same store
    const outcome = await restarted.run({ input: 'brief', taskId: 'quant-2026-04-10:converge', generate });

    expect(outcome.ok).toBe(false);
    expect(outcome.ok || outcome.code).toBe('revise_limit');
    expect(outcome.retries).toBe(3);
    expect(review.seen).toEqual([3]);
    expect(generate.requests).toHaveLength(1);
    expect(outcome.attempts[0]).toMatchObject({ status: 'revise', escalated: true, retries: 3 });
  });

  it('shares the rounds between runs of one task, and keeps tasks apart', async () => {
    const store = createMemoryStore();
    const once = await createReviewGate({ review: reviewer(revise, pass), store }).run({
      input: 'b',
      taskId: 't1',
      generate: drafts(2),
    });
    expect(once.ok && once.retries).toBe(1);

    const review = reviewer(revise, revise, revise);
    const again = await createReviewGate({ review, store }).run({
      input: 'b',
      taskId: 't1',
      generate: drafts(3),
    });
    expect(again.ok || again.code).toBe('revise_limit');
    expect(review.seen).toEqual([1, 2, 3]);

    const other = reviewer(revise, pass);
    await createReviewGate({ review: other, store }).run({ input: 'b', taskId: 't2', generate: drafts(2) });
    expect(other.seen).toEqual([0, 1]);
    expect(await store.get('review:t1')).toMatchObject({
      kind: 'parley.conflict.rounds',
      version: 1,
      data: { revisions: 3 },
    });
  });

  it('counts a round another instance took between its read and its write', async () => {
    const inner = createMemoryStore();
    let raced = false;
    const store: Store = {
      ...inner,
      getEntry: (key) => inner.getEntry(key),
      async compareAndSet(key, version, value, options) {
        if (!raced) {
          raced = true;
          // another replica's second round lands first
          await inner.set(key, { ...ROUNDS, data: { revisions: 2 } });
        }
        return inner.compareAndSet(key, version, value, options);
      },
    };
    const review = reviewer(revise, revise);
    const outcome = await createReviewGate({ review, store, keyPrefix: 'p:' }).run({
      input: 'b',
      taskId: 't',
      generate: drafts(2),
    });
    expect(outcome.ok || outcome.code).toBe('revise_limit');
    expect(review.seen).toEqual([0, 3]);
    expect(await inner.get('p:t')).toMatchObject({ data: { revisions: 3 } });
  });

  it('writes the count with the TTL it was given', async () => {
    const clock = createManualClock({ now: 0 });
    const store = createMemoryStore({ clock });
    await createReviewGate({ review: reviewer(revise, pass), store, ttlMs: 1_000, clock }).run({
      input: 'b',
      taskId: 't',
      generate: drafts(2),
    });
    expect((await store.getEntry('review:t'))?.expiresAt).toBe(1_000);
  });
});

describe('a review gate store that fails', () => {
  const run = (store: Store) =>
    rejection(
      createReviewGate({ review: reviewer(revise, revise), store }).run({
        input: 'b',
        taskId: 't',
        generate: drafts(2),
      }),
    );

  it('rejects with store_failed when the store cannot be read', async () => {
    const inner = createMemoryStore();
    const error = await run({ ...inner, getEntry: () => Promise.reject(new Error('down')) });
    expect(isParleyError(error, 'store_failed')).toBe(true);
    expect((error as Error).cause).toEqual(new Error('down'));
  });

  it('rejects with store_failed, after recording the attempt, when the round cannot be written', async () => {
    const down = new Error('down');
    const inner = createMemoryStore();
    const error = await run({
      ...inner,
      getEntry: (key) => inner.getEntry(key),
      compareAndSet: () => Promise.reject(down),
    });
    expect(isParleyError(error, 'store_failed')).toBe(true);
    expect((error as Error).cause).toBe(down); // the store's own error, not a copy of its text
    expect(
      (error as { details: { attempts: { status: string }[] } }).details.attempts.map((a) => a.status),
    ).toEqual(['failed']);
  });

  it('rejects with store_failed on a corrupt stored count instead of guessing one', async () => {
    const store = createMemoryStore();
    await store.set('review:t', { ...ROUNDS, data: { revisions: -1 } });
    const error = await run(store);
    expect(isParleyError(error, 'store_failed')).toBe(true);
    expect((error as { details: { problem: string } }).details.problem).toBe('corrupt_value');
  });

  it('rejects with store_failed when every write loses to another writer', async () => {
    const inner = createMemoryStore();
    const error = await run({
      ...inner,
      getEntry: (key) => inner.getEntry(key),
      compareAndSet: async () => ({ ok: false, version: 9 }),
    });
    expect(isParleyError(error, 'store_failed')).toBe(true);
    expect((error as { details: { problem: string } }).details.problem).toBe('contended');
  });
});

describe('review gate store options', () => {
  it('rejects a run without a taskId when the gate has a store', async () => {
    const gate = createReviewGate({ review: reviewer(pass), store: createMemoryStore() });
    const error = await rejection(gate.run({ input: 'b', generate: drafts(1) }));
    expect(isParleyError(error, 'invalid_argument')).toBe(true);
  });

  it.each([
    ['a ttlMs of 0', { ttlMs: 0 }],
    ['a ttlMs past the core limit', { ttlMs: 1e16 }],
    ['a store that is not a Store', { store: {} as Store }],
    ['a key prefix that is not text', { keyPrefix: 1 as unknown as string }],
  ])('throws invalid_argument for %s', (_label, extra) => {
    let error: unknown;
    try {
      createReviewGate({ review: reviewer(pass), ...extra });
    } catch (caught) {
      error = caught;
    }
    expect(isParleyError(error, 'invalid_argument')).toBe(true);
  });
});

/** One run of a gate on `store` whose reviewer says revise: the error it rejects with. */
const reviewOnce = (store: Store) =>
  rejection(
    createReviewGate({ review: reviewer(revise), store }).run({
      input: 'b',
      taskId: 't',
      generate: drafts(1),
    }),
  );

describe('a stored count that is not a count', () => {
  it('rejects with store_failed when the stored count is not an object', async () => {
    const store = createMemoryStore();
    await store.set('review:t', { ...ROUNDS, data: 'three' });
    const error = await reviewOnce(store);
    expect((error as { details: { problem: string } }).details.problem).toBe('corrupt_value');
  });
});

describe('a stored count of another format', () => {
  const runOn = async (value: unknown) => {
    const store = createMemoryStore();
    await store.set('review:t', value as never);
    const error = await reviewOnce(store);
    return { error, stored: await store.get('review:t') };
  };

  it('reads a count written before the durable kernel ({ revisions }) and stores it as a kernel record on the next round', async () => {
    const store = createMemoryStore();
    await store.set('review:t', { revisions: 1 });
    const review = reviewer(revise, pass);
    const outcome = await createReviewGate({ review, store }).run({
      input: 'b',
      taskId: 't',
      generate: drafts(2),
    });
    expect(outcome.ok).toBe(true);
    expect(review.seen).toEqual([1, 2]); // the round used before the upgrade still counts
    expect(await store.get('review:t')).toMatchObject({
      ...ROUNDS,
      data: { revisions: 2 },
      deadlineAt: expect.any(Number),
    });
  });

  it('refuses a value that is no count as corrupt_value, also when the store cannot show it again', async () => {
    const inner = createMemoryStore();
    await inner.set('review:t', 'three');
    const store: Store = {
      ...inner,
      getEntry: (key) => inner.getEntry(key),
      get: () => Promise.reject(new Error('down')),
    };
    const error = await reviewOnce(store);
    expect((error as { details: { problem: string } }).details.problem).toBe('corrupt_value');
  });

  it('refuses a count of another record format as record_version and leaves it as it was', async () => {
    const other = { ...ROUNDS, version: 2, data: { revisions: 1 } };
    const { error, stored } = await runOn(other);
    expect((error as { details: { problem: string } }).details.problem).toBe('record_version');
    expect(stored).toEqual(other);
  });
});

describe('two gate instances racing on one task', () => {
  it('takes every round once: two concurrent revises of one task count 2, nothing lost', async () => {
    const store = createMemoryStore();
    const gate = (seen: number[]) =>
      createReviewGate({
        review: (_o: unknown, { revisions }: { revisions: number }) => {
          seen.push(revisions);
          return seen.length === 1 ? revise : pass;
        },
        store,
      });
    const a: number[] = [];
    const b: number[] = [];
    const runs = [gate(a), gate(b)].map((g) => g.run({ input: 'b', taskId: 't', generate: drafts(2) }));
    const outcomes = await Promise.all(runs);
    expect(outcomes.map((o) => o.ok)).toEqual([true, true]);
    expect(await store.get('review:t')).toMatchObject({ data: { revisions: 2 } });
    expect([...a, ...b].sort()).toEqual([0, 0, 1, 2]);
  });
});
