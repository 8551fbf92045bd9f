// The @example of every kernel export, with assertions (the rest of core's examples run in tests/doc-examples).
import { describe, expect, it } from 'vitest';
import {
  addSettled,
  CLAIM_RECORDS,
  type ClaimRecord,
  createKernel,
  createManualClock,
  createMemoryStore,
  createOwnerId,
  DEFAULT_CLAIM_RETAIN_MS,
  DEFAULT_GRACE_MS,
  DEFAULT_JOURNAL_LIMITS,
  DEFAULT_LIST_LIMIT,
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_MAX_ROUNDS,
  findSettled,
  isParleyError,
  KERNEL_ERROR_CODES,
  KERNEL_REFUSAL_CODES,
  type ApplyResult,
  type ClaimResult,
  type Kernel,
  KernelError,
  type KernelList,
  type KernelOptions,
  type KernelStep,
  type RecordCodec,
  readJournal,
  type RefusedRecord,
  runEffects,
} from '../src/index.js';

const counter: RecordCodec<number> = {
  kind: 'example.counter',
  version: 1,
  decode: (data) => (typeof data === 'number' ? data : undefined),
  encode: (value) => value,
};

describe('TSDoc examples of the kernel', () => {
  it('createKernel', async () => {
    const kernel = createKernel({ store: createMemoryStore(), owner: 'worker-a' });
    const add = (current: number | undefined, n: number) => ({
      value: (current ?? 0) + n,
      effects: [`added ${n}`],
    });
    const done = await kernel.apply('count', counter, add, 2);
    expect(done.ok && done.committed?.value).toBe(2);
    expect(done.ok && done.effects).toEqual(['added 2']);
  });

  it('Kernel, KernelOptions, KernelStep, ApplyResult and ClaimResult', async () => {
    const clock = createManualClock();
    const options: KernelOptions = {
      store: createMemoryStore({ clock }),
      clock,
      owner: 'worker-a',
      graceMs: 60_000,
    };
    const kernel: Kernel = createKernel(options);
    expect(kernel.owner).toBe('worker-a');
    const add: KernelStep<number, number, never> = (current, n) => ({
      value: (current ?? 0) + n,
      effects: [],
    });
    const value = (result: ApplyResult<number, never>): number | undefined =>
      result.ok ? result.committed?.value : undefined;
    expect(value(await kernel.apply('n', counter, add, 4))).toBe(4);
    const describeClaim = (result: ClaimResult): string => ('status' in result ? result.status : result.code);
    expect(describeClaim(await kernel.claim('c', { id: 'x', digest: 'd', leaseMs: 10 }))).toBe('claimed');
  });

  it('runEffects', async () => {
    type Order = { readonly state: 'new' | 'sent' };
    const codec: RecordCodec<Order> = {
      kind: 'example.order',
      version: 1,
      decode: (data) =>
        data !== null && typeof data === 'object' && 'state' in data ? (data as Order) : undefined,
      encode: (value) => ({ ...value }),
    };
    const step = (order: Order | undefined, event: 'place' | 'sent') =>
      event === 'place' && order === undefined
        ? { value: { state: 'new' } as Order, effects: ['send'] }
        : { value: { state: 'sent' } as Order, effects: [] };
    const kernel = createKernel({ store: createMemoryStore() });
    const done = await runEffects(kernel, 'order:1', codec, step, 'place', async () => 'sent' as const);
    expect(done.ok && done.committed?.value).toEqual({ state: 'sent' });
  });

  it('Kernel.acquire with change', async () => {
    const counter: RecordCodec<number> = {
      kind: 'example.counter',
      version: 1,
      decode: (data) => (typeof data === 'number' ? data : undefined),
      encode: (value) => value,
    };
    const kernel = createKernel({ store: createMemoryStore(), owner: 'worker-a' });
    await kernel.apply('count', counter, () => ({ value: 1, effects: [] }), null);
    // the lease and the change made under it, in one write
    const taken = await kernel.acquire('count', counter, { ttlMs: 30_000, change: (n) => (n ?? 0) + 1 });
    expect(taken.ok && [taken.lease.token, taken.committed?.value]).toEqual([1, 2]);
  });

  it('Kernel.abandon', async () => {
    const kernel = createKernel({ store: createMemoryStore(), owner: 'worker-a' });
    const effect = { id: 'send-invoice-42', digest: 'sha256:ab12', leaseMs: 30_000 };
    const first = await kernel.claim('call:42', effect);
    if (!('status' in first) || first.status !== 'claimed') throw new Error('not claimed');
    expect(await kernel.abandon(first.claim)).toEqual({ ok: true });
    const again = await kernel.claim('call:42', effect);
    expect('status' in again && again.status).toBe('claimed');
  });

  it('CLAIM_RECORDS and ClaimRecord', async () => {
    const kernel = createKernel({ store: createMemoryStore(), owner: 'worker-a' });
    await kernel.claim('call:42', { id: 'send-invoice-42', digest: 'sha256:ab12', leaseMs: 30_000 });
    const found = await kernel.read('call:42', CLAIM_RECORDS);
    expect([found?.value.owner, found?.value.settled]).toEqual(['worker-a', false]);
    const record: ClaimRecord = {
      id: 'send-invoice-42',
      digest: 'sha256:ab12',
      owner: 'worker-a',
      claimedAt: 1_700_000_000_000,
      settled: true,
      result: { sent: true },
    };
    expect(CLAIM_RECORDS.decode(CLAIM_RECORDS.encode(record))).toEqual(record);
    expect(CLAIM_RECORDS.decode({ id: 'x' })).toBeUndefined();
  });

  it('Kernel.list, KernelList, RefusedRecord and DEFAULT_LIST_LIMIT', async () => {
    const store = createMemoryStore();
    const kernel = createKernel({ store, owner: 'worker-a' });
    await kernel.apply('count:a', counter, () => ({ value: 1, effects: [] }), null);
    await store.set('count:b', {
      kind: 'example.counter',
      version: 2,
      data: 5,
      lease: null,
      fence: 0,
      deadlineAt: null,
    });
    const found = await kernel.list('count:', counter);
    expect(found.records.map((r) => [r.key, r.value])).toEqual([['count:a', 1]]);
    expect(found.refused.map((r) => [r.key, r.code])).toEqual([['count:b', 'record_version']]);
    const empty: KernelList<number> = { records: [], refused: [], truncated: false };
    expect(empty.truncated).toBe(false);
    const refused: RefusedRecord = {
      key: 'run:7',
      code: 'record_version',
      message: 'run:7: record format 2 of example.run, this code reads 1',
    };
    expect(refused.code).toBe('record_version');
    expect(DEFAULT_LIST_LIMIT).toBe(10_000);
  });

  it('createOwnerId', () => {
    const id = createOwnerId('runner');
    expect(id.startsWith('runner-')).toBe(true);
    expect(id).not.toBe(createOwnerId('runner'));
    expect(createOwnerId().startsWith('owner-')).toBe(true);
  });

  it('addSettled, findSettled and readJournal', () => {
    const added = addSettled([], { key: 'msg_1', digest: 'a', result: 93, at: 0 });
    expect(added.ok && findSettled(added.journal, 'msg_1')?.result).toBe(93);
    const limits = { maxEntries: 1, maxBytes: 1024 };
    let journal = addSettled([], { key: 'a', digest: 'x', result: 1, at: 0 }, limits);
    journal = journal.ok
      ? addSettled(journal.journal, { key: 'b', digest: 'y', result: 2, at: 1 }, limits)
      : journal;
    expect(journal.ok && journal.journal.map((e) => e.key)).toEqual(['b']);
    expect(readJournal([{ key: 'a', digest: 'x', result: null, at: 0 }])?.length).toBe(1);
    expect(readJournal('no')).toBeUndefined();
  });

  it('KernelError and the code lists', () => {
    const err = new KernelError('record_version', 'run:1 has format 2, this code reads 1');
    expect(isParleyError(err, 'record_version')).toBe(true);
    expect(KERNEL_ERROR_CODES.includes('record_version')).toBe(true);
    expect(KERNEL_REFUSAL_CODES.includes('lease_lost')).toBe(true);
  });

  it('the defaults', () => {
    expect(DEFAULT_GRACE_MS).toBe(3_600_000);
    expect(DEFAULT_MAX_ATTEMPTS).toBe(8);
    expect(DEFAULT_MAX_ROUNDS).toBe(64);
    expect(DEFAULT_CLAIM_RETAIN_MS / 86_400_000).toBe(7);
    expect(DEFAULT_JOURNAL_LIMITS.maxEntries).toBe(256);
  });
});
