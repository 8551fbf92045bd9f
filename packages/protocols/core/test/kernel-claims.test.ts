import { describe, expect, it } from 'vitest';
import {
  addSettled,
  DEFAULT_CLAIM_RETAIN_MS,
  findSettled,
  readJournal,
  runEffects,
  type KernelStep,
} from '../src/index.js';
import { type Counter, counter, twoKernels } from './kernel-helpers.js';

const effect = { id: 'send', digest: 'd1', leaseMs: 1_000 };

const setup = () => twoKernels();

describe('claims', () => {
  it('claims an effect once; a second claim sees it in flight, then settled with its result', async () => {
    const { a, b } = setup();
    const first = await a.claim('c', effect);
    expect(first).toMatchObject({ status: 'claimed', claim: { key: 'c', id: 'send', owner: 'a', token: 1 } });
    expect(await b.claim('c', effect)).toEqual({ status: 'in_flight', owner: 'a', expiresAt: 2_000 });
    if (!('status' in first) || first.status !== 'claimed') throw new Error('not claimed');
    expect(await a.settle(first.claim, { sent: true })).toEqual({ ok: true });
    expect(await b.claim('c', effect)).toEqual({ status: 'settled', result: { sent: true } });
  });

  it('reports an expired claim without a result as unknown, and never hands it out again', async () => {
    const { clock, a, b } = setup();
    const first = await a.claim('c', effect);
    clock.advance(1_000);
    expect(await b.claim('c', effect)).toEqual({ status: 'unknown', owner: 'a', claimedAt: 1_000 });
    if (!('status' in first) || first.status !== 'claimed') throw new Error('not claimed');
    const late = await a.settle(first.claim, 1);
    expect(!late.ok && late.code).toBe('lease_lost');
    expect(await b.claim('c', effect)).toMatchObject({ status: 'unknown' });
  });

  it('answers conflict for the same key with another id or digest', async () => {
    const { a } = setup();
    await a.claim('c', effect);
    expect(await a.claim('c', { ...effect, digest: 'd2' })).toMatchObject({ status: 'conflict' });
    expect(await a.claim('c', { ...effect, id: 'other' })).toMatchObject({ status: 'conflict' });
  });

  it('refuses to settle a claim whose record holds another claim', async () => {
    const { a } = setup();
    const first = await a.claim('c', effect);
    if (!('status' in first) || first.status !== 'claimed') throw new Error('not claimed');
    const wrong = await a.settle({ ...first.claim, id: 'other' }, 1);
    expect(!wrong.ok && wrong.code).toBe('claim_conflict');
  });

  it('keeps a claim record for retainMs (seven days by default), its lifetime from its deadline', async () => {
    const { store, a } = setup();
    await a.claim('c', effect);
    await a.claim('d', { ...effect, retainMs: 10 });
    expect((await store.getEntry('c'))?.expiresAt).toBe(1_000 + DEFAULT_CLAIM_RETAIN_MS + 3_600_000);
    expect((await store.getEntry('d'))?.expiresAt).toBe(2_000 + 3_600_000);
  });

  it('returns store_failed when the claim cannot be written, so nothing runs', async () => {
    const { store, a } = setup();
    store.failWrites = 1;
    expect(await a.claim('c', effect)).toMatchObject({ ok: false, code: 'store_failed' });
    await expect(a.claim('c', { ...effect, leaseMs: -1 })).rejects.toMatchObject({
      code: 'invalid_argument',
    });
  });
});

describe('journal of settled keys', () => {
  it('finds settled keys and drops the oldest past the count cap', () => {
    let journal = readJournal([]) ?? [];
    for (const key of ['a', 'b', 'c']) {
      const added = addSettled(
        journal,
        { key, digest: key, result: null, at: 0 },
        { maxEntries: 2, maxBytes: 10_000 },
      );
      if (added.ok) journal = added.journal;
    }
    expect(journal.map((e) => e.key)).toEqual(['b', 'c']);
    expect(findSettled(journal, 'a')).toBeUndefined();
    expect(findSettled(journal, 'c')?.digest).toBe('c');
  });

  it('drops the oldest past the byte cap, keeps a known key as it is, and refuses an entry too large alone', () => {
    const entry = (key: string, size: number) => ({ key, digest: 'x'.repeat(size), result: null, at: 0 });
    const limits = { maxEntries: 10, maxBytes: 200 };
    const one = addSettled([], entry('a', 100), limits);
    const two = one.ok ? addSettled(one.journal, entry('b', 100), limits) : one;
    expect(two.ok && two.journal.map((e) => e.key)).toEqual(['b']);
    const same = two.ok ? addSettled(two.journal, entry('b', 1), limits) : two;
    expect(same.ok && same.journal[0]?.digest.length).toBe(100);
    expect(addSettled([], entry('c', 300), limits)).toMatchObject({ ok: false, code: 'too_large' });
  });

  it('reads only well-formed journals', () => {
    expect(readJournal('x')).toBeUndefined();
    expect(readJournal([{ key: 'a' }])).toBeUndefined();
    expect(readJournal([null])).toBeUndefined();
  });
});

describe('runEffects', () => {
  type Event = { readonly type: 'start' } | { readonly type: 'done'; readonly by: number };
  const step: KernelStep<Counter, Event, string> = (current, event) =>
    event.type === 'start'
      ? { value: { n: current?.n ?? 0 }, effects: ['work', 'log'] }
      : { value: { n: (current?.n ?? 0) + event.by }, effects: [] };

  it('performs each effect after its change committed and feeds its outcome back', async () => {
    const { a } = setup();
    const performed: string[] = [];
    const done = await runEffects(a, 'k', counter, step, { type: 'start' }, async (effect) => {
      performed.push(effect);
      return effect === 'work' ? { type: 'done' as const, by: 5 } : undefined;
    });
    expect(done.ok && done.committed?.value).toEqual({ n: 5 });
    expect(performed).toEqual(['work', 'log']);
  });

  it('stops at a refusal, and throws effects_runaway when effects never end', async () => {
    const { a, b, clock } = setup();
    const lease = await a.acquire('k', counter, { ttlMs: 10 });
    if (!lease.ok) throw new Error('no lease');
    const refused = await runEffects(b, 'k', counter, step, { type: 'start' }, async () => undefined);
    expect(!refused.ok && refused.code).toBe('lease_held');
    const performed: string[] = [];
    const stopped = await runEffects(
      a,
      'k',
      counter,
      step,
      { type: 'start' },
      async (effect) => {
        performed.push(effect);
        clock.advance(10);
        return { type: 'done' as const, by: 1 };
      },
      { lease: lease.lease },
    );
    expect(!stopped.ok && stopped.code).toBe('lease_lost');
    expect(performed).toEqual(['work']);
    const loop: KernelStep<Counter, null, string> = (c) => ({ value: c ?? { n: 0 }, effects: ['again'] });
    await expect(
      runEffects(b, 'j', counter, loop, null, async () => null, { maxRounds: 3 }),
    ).rejects.toMatchObject({
      code: 'effects_runaway',
    });
  });
});
