import { createMemoryStore, isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createSettings, GLOBAL } from '../src/index.js';
import { registry, setup } from './helpers.js';

describe('snapshot', () => {
  it('reads every default when nothing was written', async () => {
    const { settings } = setup();
    const snap = await settings.snapshot('c1');
    expect(snap.values).toEqual({
      'mode.a': false,
      'mode.b': false,
      'mode.c': false,
      'boost.on': false,
      'boost.extra': true,
      'limits.max': 3,
      'ui.tags': ['x'],
    });
    for (const key of registry.keys) expect(snap.entry(key).source).toBe('default');
    expect(snap.version).toEqual({ global: 0, campaign: 0 });
    expect(snap.campaignId).toBe('c1');
    expect(snap.takenAt).toBe(1_000);
  });

  it('returns the typed value of a key with get', async () => {
    const { settings } = setup();
    await settings.set('c1', 'ui.tags', ['a', 'b']);
    const snap = await settings.snapshot('c1');
    expect(snap.get('ui.tags')).toEqual(['a', 'b']);
    expect(snap.get('limits.max')).toBe(3);
  });

  it('applies a global value to every campaign', async () => {
    const { settings } = setup();
    await settings.set(GLOBAL, 'limits.max', 7);
    await settings.set(GLOBAL, 'mode.a', true);
    for (const id of ['c1', 'c2']) {
      const snap = await settings.snapshot(id);
      expect(snap.get('limits.max')).toBe(7);
      expect(snap.entry('mode.a')).toEqual({ value: true, source: 'global' });
    }
  });

  it('lets a campaign value override the global one for that campaign only', async () => {
    const { settings } = setup();
    await settings.set(GLOBAL, 'ui.tags', ['global']);
    await settings.set('c1', 'ui.tags', ['mine']);
    const mine = await settings.snapshot('c1');
    const other = await settings.snapshot('c2');
    expect(mine.entry('ui.tags')).toEqual({ value: ['mine'], source: 'campaign' });
    expect(other.entry('ui.tags')).toEqual({ value: ['global'], source: 'global' });
  });

  it('reads the global layer alone for the GLOBAL target', async () => {
    const { settings } = setup();
    await settings.set('c1', 'ui.tags', ['mine']);
    await settings.set(GLOBAL, 'boost.on', true);
    const snap = await settings.snapshot(GLOBAL);
    expect(snap.campaignId).toBeNull();
    expect(snap.get('ui.tags')).toEqual(['x']);
    expect(snap.entry('boost.on').source).toBe('global');
    expect(snap.version.campaign).toBe(0);
  });

  it('shows a mid-session change in the next snapshot but not in one already taken', async () => {
    const { settings, clock } = setup();
    const before = await settings.snapshot('c1');
    clock.advance(500);
    await settings.set('c1', 'mode.b', true);
    const after = await settings.snapshot('c1');
    expect(before.get('mode.b')).toBe(false);
    expect(before.values['mode.b']).toBe(false);
    expect(after.get('mode.b')).toBe(true);
    expect(after.takenAt).toBe(1_500);
    expect(after.version.campaign).toBeGreaterThan(before.version.campaign);
  });

  it('is deeply frozen', async () => {
    const { settings } = setup();
    const snap = await settings.snapshot('c1');
    expect(Object.isFrozen(snap)).toBe(true);
    expect(Object.isFrozen(snap.values)).toBe(true);
    expect(Object.isFrozen(snap.get('ui.tags'))).toBe(true);
    expect(() => (snap.get('ui.tags') as string[]).push('y')).toThrow(TypeError);
    expect(registry.definitions['ui.tags'].default).toEqual(['x']);
  });

  it('records the layer versions it read, so equal versions mean equal settings', async () => {
    const { settings } = setup();
    const written = await settings.set('c1', 'mode.a', true);
    const globalWrite = await settings.set(GLOBAL, 'limits.max', 5);
    const snap = await settings.snapshot('c1');
    expect(written.ok && globalWrite.ok).toBe(true);
    if (!written.ok || !globalWrite.ok) return;
    expect(snap.version).toEqual({
      global: globalWrite.snapshot.version.global,
      campaign: written.snapshot.version.campaign,
    });
    expect((await settings.snapshot('c1')).version).toEqual(snap.version);
  });

  it('serialises to plain JSON for a turn log', async () => {
    const { settings } = setup();
    await settings.set('c1', 'boost.on', true);
    const snap = await settings.snapshot('c1');
    const json = JSON.parse(JSON.stringify(snap));
    expect(json).toEqual(snap.toJSON());
    expect(json.campaignId).toBe('c1');
    expect(json.entries['boost.on']).toEqual({ value: true, source: 'campaign' });
    expect(json.entries['boost.extra']).toEqual({
      value: false,
      source: 'default',
      suppressedBy: 'boost.on',
    });
  });

  it('throws unknown_key for a key outside the registry', async () => {
    const { settings } = setup();
    const snap = await settings.snapshot('c1');
    const get = snap.get as (key: string) => unknown;
    const error = (() => {
      try {
        get('constructor');
      } catch (err) {
        return err;
      }
    })();
    expect(isParleyError(error, 'unknown_key')).toBe(true);
    expect(() => (snap.entry as (key: string) => unknown)('mode.z')).toThrow(/mode\.z/);
  });

  it('throws invalid_argument for an empty campaign id', async () => {
    const { settings } = setup();
    await expect(settings.snapshot('')).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(settings.snapshot(42 as unknown as string)).rejects.toMatchObject({
      code: 'invalid_argument',
    });
  });
});

describe('persistence', () => {
  it('reads what an earlier service wrote to the same store', async () => {
    const { settings, store, clock } = setup();
    await settings.set('c1', 'mode.c', true);
    await settings.set(GLOBAL, 'limits.max', 9);
    const later = createSettings(registry, { store, clock });
    const snap = await later.snapshot('c1');
    expect(snap.entry('mode.c')).toEqual({ value: true, source: 'campaign' });
    expect(snap.entry('limits.max')).toEqual({ value: 9, source: 'global' });
  });

  it('keeps services with different key prefixes apart on one store', async () => {
    const store = createMemoryStore();
    const one = createSettings(registry, { store, keyPrefix: 'one:' });
    const two = createSettings(registry, { store, keyPrefix: 'two:' });
    await one.set('c1', 'mode.a', true);
    expect((await two.snapshot('c1')).get('mode.a')).toBe(false);
    expect(await store.get('one:campaign:c1')).toMatchObject({
      kind: 'parley.settings.layer',
      version: 1,
      data: { rev: 1, values: { 'mode.a': true } },
    });
  });

  it('ignores a stored value that no longer passes its schema and reports it', async () => {
    const { settings, store } = setup();
    await store.set('settings:global', { values: { 'limits.max': 3000, 'ui.tags': ['g'] } });
    await store.set('settings:campaign:c1', { values: { 'ui.tags': 'not-a-list', 'gone.key': 1 } });
    const ignored: unknown[] = [];
    settings.on('ignored', (event) => ignored.push(event));
    const snap = await settings.snapshot('c1');
    expect(snap.entry('limits.max')).toEqual({ value: 3, source: 'default' });
    expect(snap.entry('ui.tags')).toEqual({ value: ['g'], source: 'global' });
    expect(ignored).toMatchObject([
      { campaignId: 'c1', key: 'limits.max', source: 'global' },
      { campaignId: 'c1', key: 'ui.tags', source: 'campaign' },
    ]);
    expect(Object.keys(snap.values)).not.toContain('gone.key');
  });

  it('refuses a layer stored in another shape as corrupt_record on read and write, leaving it as it is', async () => {
    const { settings, store } = setup();
    await store.set('settings:campaign:c1', ['junk']);
    const read = await settings.snapshot('c1').catch((error: unknown) => error);
    expect(isParleyError(read, 'corrupt_record')).toBe(true);
    const write = await settings.set('c1', 'mode.a', true).catch((error: unknown) => error);
    expect(isParleyError(write, 'corrupt_record')).toBe(true);
    expect(await store.get('settings:campaign:c1')).toEqual(['junk']);
  });
});
