// Settings layers on the durable kernel: a layer of the previous format is read and migrated by the
// next write, a layer of another record format is refused and kept, a failing store writes nothing,
// and two services racing on one layer both land.
import { createManualClock, createMemoryStore, isParleyError, type Store } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createSettings, GLOBAL } from '../src/index.js';
import { racingStore, registry, setup } from './helpers.js';

const LAYER = { kind: 'parley.settings.layer', version: 1, lease: null, fence: 0, deadlineAt: null };

describe('a layer stored before the durable kernel ({ values })', () => {
  it('is read as it is, its store version as its version', async () => {
    const { settings, store } = setup();
    await store.set('settings:campaign:c1', { values: { 'mode.a': true } });
    await store.set('settings:campaign:c1', { values: { 'mode.a': true, 'ui.tags': ['old'] } });
    const snap = await settings.snapshot('c1');
    expect([snap.get('ui.tags'), snap.version.campaign]).toEqual([['old'], 2]);
    expect(await store.get('settings:campaign:c1')).toEqual({
      values: { 'mode.a': true, 'ui.tags': ['old'] },
    });
  });

  it('is migrated by the next write, keeping its values and counting on from its version', async () => {
    const { settings, store } = setup();
    await store.set('settings:campaign:c1', { values: { 'ui.tags': ['old'] } });
    const seen = await settings.snapshot('c1');
    const result = await settings.set('c1', 'mode.a', true, { expectedVersion: seen.version.campaign });
    expect(result.ok && result.snapshot.values).toMatchObject({ 'mode.a': true, 'ui.tags': ['old'] });
    expect(result.ok && result.snapshot.version.campaign).toBe(2);
    expect(await store.get('settings:campaign:c1')).toMatchObject({
      ...LAYER,
      data: { rev: 2, values: { 'mode.a': true, 'ui.tags': ['old'] } },
    });
  });
});

describe('a layer of another record format', () => {
  it('is refused record_version on read and write and never overwritten', async () => {
    const { settings, store } = setup();
    const other = { ...LAYER, version: 2, data: { rev: 1, values: {} } };
    await store.set('settings:global', other);
    expect(isParleyError(await settings.snapshot(GLOBAL).catch((e: unknown) => e), 'record_version')).toBe(
      true,
    );
    const write = await settings.set(GLOBAL, 'limits.max', 4).catch((e: unknown) => e);
    expect(isParleyError(write, 'record_version')).toBe(true);
    expect(await store.get('settings:global')).toEqual(other);
  });

  it.each([
    ['a revision of 0', { rev: 0, values: {} }],
    ['no values', { rev: 1 }],
    ['text', 'layer'],
  ])('refuses a kernel layer whose data has %s as corrupt_record', async (_, data) => {
    const { settings, store } = setup();
    await store.set('settings:global', { ...LAYER, data });
    const error = await settings.snapshot(GLOBAL).catch((e: unknown) => e);
    expect(isParleyError(error, 'corrupt_record')).toBe(true);
  });

  it('gives up with write_conflict when an old layer keeps changing under its migration', async () => {
    const clock = createManualClock();
    const inner = createMemoryStore({ clock });
    let n = 0;
    const old = (s: Store) => s.set('settings:global', { values: { 'limits.max': ++n % 10 } });
    await old(inner);
    const store = racingStore(inner, async (s) => void (await old(s)), 10);
    const settings = createSettings(registry, { store, clock, maxWriteAttempts: 2 });
    const error = await settings.set(GLOBAL, 'mode.a', true).catch((e: unknown) => e);
    expect(isParleyError(error, 'write_conflict')).toBe(true);
    expect(await inner.get('settings:global')).toEqual({ values: { 'limits.max': 3 } });
  });
});

describe('a failing store', () => {
  it('rejects a write with store_failed and writes nothing', async () => {
    const down = new Error('down');
    const clock = createManualClock();
    const inner = createMemoryStore({ clock });
    const store: Store = {
      ...inner,
      getEntry: (k) => inner.getEntry(k),
      compareAndSet: () => Promise.reject(down),
    };
    const settings = createSettings(registry, { store, clock });
    let changed = 0;
    settings.on('changed', () => changed++);
    const error = await settings.set('c1', 'mode.a', true).catch((e: unknown) => e);
    expect(isParleyError(error, 'store_failed')).toBe(true);
    expect((error as Error).cause).toBe(down); // the store's own error, not a copy of its text
    expect([changed, await inner.get('settings:campaign:c1')]).toEqual([0, undefined]);
  });

  it('rejects a write that would migrate a layer with store_failed, leaving the layer as it was', async () => {
    const inner = createMemoryStore();
    await inner.set('settings:global', { values: { 'limits.max': 4 } });
    const store: Store = {
      ...inner,
      getEntry: (k) => inner.getEntry(k),
      compareAndSet: () => Promise.reject(new Error('down')),
    };
    const error = await createSettings(registry, { store })
      .set(GLOBAL, 'limits.max', 5)
      .catch((e: unknown) => e);
    expect(isParleyError(error, 'store_failed')).toBe(true);
    expect(await inner.get('settings:global')).toEqual({ values: { 'limits.max': 4 } });
  });

  it('rejects a snapshot with store_failed, the store’s error as its cause', async () => {
    const inner = createMemoryStore();
    const down = new Error('down');
    const store: Store = { ...inner, getEntry: () => Promise.reject(down) };
    const error = await createSettings(registry, { store })
      .snapshot('c1')
      .catch((e: unknown) => e);
    expect(isParleyError(error, 'store_failed')).toBe(true);
    expect((error as Error).cause).toBe(down);
  });
});

describe('a layer too large for the kernel', () => {
  it('rejects the write with too_large and writes nothing', async () => {
    const { settings, store } = setup();
    const error = await settings.set('c1', 'ui.tags', ['x'.repeat(1024 * 1024)]).catch((e: unknown) => e);
    expect(isParleyError(error, 'too_large')).toBe(true);
    expect(await store.get('settings:campaign:c1')).toBeUndefined();
  });
});

describe('two services racing on one layer', () => {
  it('re-runs the loser on the fresh layer: both writes land, counted once each', async () => {
    const clock = createManualClock();
    const inner = createMemoryStore({ clock });
    const other = createSettings(registry, { store: inner, clock });
    const store = racingStore(inner, async () => void (await other.set('c1', 'ui.tags', ['b'])));
    const settings = createSettings(registry, { store, clock });
    const result = await settings.set('c1', 'boost.on', true);
    expect(result.ok && result.snapshot.version.campaign).toBe(2);
    expect((await other.snapshot('c1')).values).toMatchObject({ 'boost.on': true, 'ui.tags': ['b'] });
  });
});
