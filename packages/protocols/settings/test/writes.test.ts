import { createManualClock, createMemoryStore, isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createSettings,
  defineSetting,
  defineSettings,
  GLOBAL,
  SETTINGS_REFUSAL_CODES,
  type SettingsEvents,
} from '../src/index.js';
import { racingStore, registry, setup } from './helpers.js';

describe('set', () => {
  it('commits a valid value and returns the fresh snapshot', async () => {
    const { settings } = setup();
    const result = await settings.set('c1', 'ui.tags', ['a']);
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.snapshot.entry('ui.tags')).toEqual({ value: ['a'], source: 'campaign' });
  });

  it('refuses an invalid value with the key and the issues, and writes nothing', async () => {
    const { settings, store } = setup();
    const result = await settings.set(GLOBAL, 'limits.max', 11);
    expect(result).toMatchObject({ ok: false, code: 'invalid_value', key: 'limits.max' });
    expect(result.ok ? '' : result.message).toMatch(/^The value of "limits.max" is refused: .*10/);
    if (!result.ok && result.code === 'invalid_value') expect(result.issues[0]?.message).toMatch(/10/);
    expect(await store.get('settings:global')).toBeUndefined();
  });

  it('refuses a value whose schema output is not JSON', async () => {
    const odd = defineSettings([defineSetting({ key: 'odd.value', schema: z.unknown(), default: null })]);
    const settings = createSettings(odd);
    const result = await settings.set('c1', 'odd.value', () => 1);
    expect(result).toMatchObject({
      ok: false,
      code: 'invalid_value',
      key: 'odd.value',
      message: 'The value of "odd.value" is refused: Not JSON',
      issues: [{ message: 'Not JSON' }],
    });
  });

  it('refuses a campaign write of a global-scope setting', async () => {
    const { settings } = setup();
    const result = await settings.set('c1', 'limits.max', 5);
    expect(result).toEqual({
      ok: false,
      code: 'scope_mismatch',
      message: 'The setting "limits.max" is global; a campaign cannot set it',
      key: 'limits.max',
      scope: 'global',
    });
    expect((await settings.snapshot('c1')).get('limits.max')).toBe(3);
  });

  it('throws unknown_key for a key outside the registry (API misuse)', async () => {
    const { settings } = setup();
    const set = settings.set as (target: string, key: string, value: unknown) => Promise<unknown>;
    await expect(set('c1', 'mode.z', true)).rejects.toSatisfy((err) => isParleyError(err, 'unknown_key'));
  });

  it('throws invalid_argument for a target that is neither a campaign id nor GLOBAL', async () => {
    const { settings } = setup();
    await expect(settings.set('', 'mode.a', true)).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('emits changed with the previous and new values after the commit', async () => {
    const { settings, clock } = setup();
    const seen: SettingsEvents['changed'][] = [];
    settings.on('changed', (event) => seen.push(event));
    await settings.set('c1', 'mode.a', true);
    clock.advance(10);
    const second = await settings.set('c1', 'mode.a', false);
    expect(seen).toHaveLength(2);
    expect(seen[0]).toMatchObject({
      campaignId: 'c1',
      changes: [{ key: 'mode.a', previous: undefined, value: true }],
      at: 1_000,
    });
    expect(seen[1]).toMatchObject({ changes: [{ key: 'mode.a', previous: true, value: false }], at: 1_010 });
    if (second.ok) expect(seen[1]?.version).toBe(second.snapshot.version.campaign);
  });

  it('writes nothing and emits nothing when the value is unchanged', async () => {
    const { settings } = setup();
    const first = await settings.set('c1', 'ui.tags', ['a']);
    let events = 0;
    settings.on('changed', () => events++);
    const again = await settings.set('c1', 'ui.tags', ['a']);
    expect(again.ok && first.ok && again.snapshot.version.campaign === first.snapshot.version.campaign).toBe(
      true,
    );
    expect(events).toBe(0);
  });

  it('stops emitting to a listener after it unsubscribes', async () => {
    const { settings } = setup();
    let events = 0;
    const off = settings.on('changed', () => events++);
    await settings.set('c1', 'mode.a', true);
    off();
    await settings.set('c1', 'mode.a', false);
    expect(events).toBe(1);
  });

  it('reports a throwing listener to onListenerError without failing the write', async () => {
    const errors: unknown[] = [];
    const settings = createSettings(registry, { onListenerError: (error) => errors.push(error) });
    settings.on('changed', () => {
      throw new Error('listener broke');
    });
    const result = await settings.set('c1', 'mode.a', true);
    expect(result.ok).toBe(true);
    expect(errors).toHaveLength(1);
  });
});

describe('safeSet', () => {
  it('refuses an unknown key as data', async () => {
    const { settings } = setup();
    for (const key of ['context.nope', 'constructor', '__proto__']) {
      expect(await settings.safeSet('c1', key, true)).toEqual({
        ok: false,
        code: 'unknown_key',
        message: `Unknown setting "${key}"`,
        key,
      });
    }
  });

  it('validates untrusted input against the schema', async () => {
    const { settings } = setup();
    expect(await settings.safeSet('c1', 'mode.a', 'yes')).toMatchObject({
      ok: false,
      code: 'invalid_value',
      key: 'mode.a',
    });
    const ok = await settings.safeSet('c1', 'mode.a', true);
    expect(ok.ok && ok.snapshot.get('mode.a')).toBe(true);
  });

  it('lists every refusal code in SETTINGS_REFUSAL_CODES', () => {
    expect([...SETTINGS_REFUSAL_CODES].sort()).toEqual(
      ['invalid_value', 'mutually_exclusive', 'scope_mismatch', 'unknown_key', 'version_mismatch'].sort(),
    );
  });
});

describe('update and reset', () => {
  it('sets several keys atomically, refusing all when one is invalid', async () => {
    const { settings } = setup();
    const refused = await settings.update('c1', { 'mode.a': true, 'ui.tags': [1 as unknown as string] });
    expect(refused).toMatchObject({ ok: false, code: 'invalid_value', key: 'ui.tags' });
    expect((await settings.snapshot('c1')).get('mode.a')).toBe(false);
    const done = await settings.update('c1', { 'mode.a': true, 'ui.tags': ['z'] });
    expect(done.ok && done.snapshot.values).toMatchObject({ 'mode.a': true, 'ui.tags': ['z'] });
  });

  it('leaves a key given as undefined unchanged', async () => {
    const { settings } = setup();
    await settings.set('c1', 'ui.tags', ['kept']);
    const result = await settings.update('c1', { 'ui.tags': undefined, 'mode.a': true });
    expect(result.ok && result.snapshot.values).toMatchObject({ 'ui.tags': ['kept'], 'mode.a': true });
  });

  it('resets one key so the global value applies again', async () => {
    const { settings } = setup();
    await settings.set(GLOBAL, 'ui.tags', ['g']);
    await settings.update('c1', { 'ui.tags': ['c'], 'mode.a': true });
    const result = await settings.reset('c1', ['ui.tags']);
    expect(result.ok && result.snapshot.entry('ui.tags')).toEqual({ value: ['g'], source: 'global' });
    expect(result.ok && result.snapshot.entry('mode.a').source).toBe('campaign');
  });

  it('resets every campaign value when no keys are given', async () => {
    const { settings } = setup();
    const seen: SettingsEvents['changed'][] = [];
    await settings.update('c1', { 'ui.tags': ['c'], 'mode.a': true });
    settings.on('changed', (event) => seen.push(event));
    const result = await settings.reset('c1');
    expect(result.ok && registry.keys.every((key) => result.snapshot.entry(key).source === 'default')).toBe(
      true,
    );
    expect(seen[0]?.changes.map((change) => change.key).sort()).toEqual(['mode.a', 'ui.tags']);
    expect(seen[0]?.changes.every((change) => change.value === undefined)).toBe(true);
  });

  it('resets the global layer, global-scope keys included', async () => {
    const { settings } = setup();
    await settings.update(GLOBAL, { 'limits.max': 8, 'mode.b': true });
    const result = await settings.reset(GLOBAL);
    expect(result.ok && result.snapshot.values).toMatchObject({ 'limits.max': 3, 'mode.b': false });
  });
});

describe('relations', () => {
  it('refuses turning on a second exclusive setting in the same campaign', async () => {
    const { settings } = setup();
    await settings.set('c1', 'mode.a', true);
    const result = await settings.set('c1', 'mode.b', true);
    expect(result).toEqual({
      ok: false,
      code: 'mutually_exclusive',
      message: '"mode.b" cannot be on while "mode.a" is on',
      key: 'mode.b',
      conflictsWith: 'mode.a',
    });
    expect((await settings.snapshot('c1')).values).toMatchObject({ 'mode.a': true, 'mode.b': false });
  });

  it('refuses a campaign value that clashes with a global one', async () => {
    const { settings } = setup();
    await settings.set(GLOBAL, 'mode.c', true);
    expect(await settings.set('c1', 'mode.a', true)).toMatchObject({
      code: 'mutually_exclusive',
      conflictsWith: 'mode.c',
    });
  });

  it('refuses two exclusive settings turned on in one update', async () => {
    const { settings } = setup();
    expect(await settings.update(GLOBAL, { 'mode.a': true, 'mode.b': true })).toMatchObject({
      code: 'mutually_exclusive',
      key: 'mode.a',
      conflictsWith: 'mode.b',
    });
  });

  it('accepts a switch that turns one off and the other on in one update', async () => {
    const { settings } = setup();
    await settings.set('c1', 'mode.a', true);
    const result = await settings.update('c1', { 'mode.a': false, 'mode.b': true });
    expect(result.ok && result.snapshot.values).toMatchObject({ 'mode.a': false, 'mode.b': true });
  });

  it('lets a campaign override turn off the global exclusive setting it replaces', async () => {
    const { settings } = setup();
    await settings.set(GLOBAL, 'mode.a', true);
    const result = await settings.update('c1', { 'mode.a': false, 'mode.b': true });
    expect(result.ok && result.snapshot.values).toMatchObject({ 'mode.a': false, 'mode.b': true });
  });

  it('keeps the most specific value when layering still turns on two exclusive settings', async () => {
    const { settings } = setup();
    await settings.set('c1', 'mode.b', true);
    await settings.set(GLOBAL, 'mode.a', true); // allowed: the global layer alone is consistent
    const snap = await settings.snapshot('c1');
    expect(snap.entry('mode.b')).toEqual({ value: true, source: 'campaign' });
    expect(snap.entry('mode.a')).toEqual({ value: false, source: 'global', suppressedBy: 'mode.b' });
  });

  it('keeps the key listed first when both come from the same scope', async () => {
    const { settings, store } = setup();
    await store.set('settings:campaign:c1', { values: { 'mode.c': true, 'mode.b': true } });
    const snap = await settings.snapshot('c1');
    expect(snap.values).toMatchObject({ 'mode.b': true, 'mode.c': false });
    expect(snap.entry('mode.c').suppressedBy).toBe('mode.b');
  });

  it('reads the lower setting as false while the precedence winner is on', async () => {
    const { settings } = setup();
    const on = await settings.set('c1', 'boost.on', true);
    expect(on.ok && on.snapshot.entry('boost.extra')).toEqual({
      value: false,
      source: 'default',
      suppressedBy: 'boost.on',
    });
    const off = await settings.set('c1', 'boost.on', false);
    expect(off.ok && off.snapshot.entry('boost.extra')).toEqual({ value: true, source: 'default' });
  });

  it('does not refuse writing the lower setting of a precedence relation', async () => {
    const { settings } = setup();
    await settings.set('c1', 'boost.on', true);
    const result = await settings.set('c1', 'boost.extra', true);
    expect(result.ok && result.snapshot.entry('boost.extra')).toEqual({
      value: false,
      source: 'campaign',
      suppressedBy: 'boost.on',
    });
  });
});

describe('concurrent writers', () => {
  it('retries on the fresh layer so a racing write of another key is kept', async () => {
    const clock = createManualClock();
    const inner = createMemoryStore({ clock });
    const other = createSettings(registry, { store: inner, clock });
    const store = racingStore(inner, async () => {
      await other.set('c1', 'ui.tags', ['other']);
    });
    const settings = createSettings(registry, { store, clock });
    const result = await settings.set('c1', 'mode.a', true);
    expect(store.compareAndSetResults.map((cas) => cas.ok)).toEqual([false, true]);
    expect(result.ok && result.snapshot.values).toMatchObject({ 'mode.a': true, 'ui.tags': ['other'] });
    expect((await other.snapshot('c1')).values).toMatchObject({ 'mode.a': true, 'ui.tags': ['other'] });
  });

  it('re-checks relations on the fresh layer after losing a race', async () => {
    const clock = createManualClock();
    const inner = createMemoryStore({ clock });
    const other = createSettings(registry, { store: inner, clock });
    const store = racingStore(inner, async () => {
      await other.set('c1', 'mode.a', true);
    });
    const settings = createSettings(registry, { store, clock });
    expect(await settings.set('c1', 'mode.b', true)).toMatchObject({
      code: 'mutually_exclusive',
      conflictsWith: 'mode.a',
    });
    expect((await other.snapshot('c1')).values).toMatchObject({ 'mode.a': true, 'mode.b': false });
  });

  it('keeps both of two concurrent writes through one service', async () => {
    const store = racingStore(createMemoryStore(), async () => {}, 0); // records compare-and-sets only
    const { settings } = setup(store);
    await Promise.all([settings.set('c1', 'mode.a', true), settings.set('c1', 'ui.tags', ['t'])]);
    expect(store.compareAndSetResults.map((cas) => cas.ok)).toEqual([true, false, true]); // the reads interleaved
    expect((await settings.snapshot('c1')).values).toMatchObject({ 'mode.a': true, 'ui.tags': ['t'] });
  });

  it('throws write_conflict when other writers win every attempt', async () => {
    const clock = createManualClock();
    const inner = createMemoryStore({ clock });
    const other = createSettings(registry, { store: inner, clock });
    let n = 0;
    const store = racingStore(inner, async () => void (await other.set(GLOBAL, 'limits.max', ++n % 10)), 3);
    const settings = createSettings(registry, { store, clock, maxWriteAttempts: 3 });
    let changed = 0;
    settings.on('changed', () => changed++);
    const error = await settings.set(GLOBAL, 'mode.a', true).catch((err: unknown) => err);
    expect(isParleyError(error, 'write_conflict')).toBe(true);
    expect(store.compareAndSetResults.every((cas) => !cas.ok)).toBe(true);
    expect(changed).toBe(0);
    expect((await other.snapshot(GLOBAL)).entry('mode.a').source).toBe('default');
  });

  it('refuses a write whose expectedVersion is stale', async () => {
    const { settings } = setup();
    const seen = await settings.snapshot('c1');
    await settings.set('c1', 'mode.a', true);
    const result = await settings.set('c1', 'ui.tags', ['late'], { expectedVersion: seen.version.campaign });
    expect(result).toMatchObject({ ok: false, code: 'version_mismatch', expectedVersion: 0 });
    expect(result.ok ? '' : result.message).toBe('The settings are at version 1, not 0');
    expect((await settings.snapshot('c1')).get('ui.tags')).toEqual(['x']);
  });

  it('commits a write whose expectedVersion is current', async () => {
    const { settings } = setup();
    await settings.set(GLOBAL, 'mode.a', true);
    const seen = await settings.snapshot(GLOBAL);
    const result = await settings.set(GLOBAL, 'limits.max', 4, { expectedVersion: seen.version.global });
    expect(result.ok).toBe(true);
  });

  it('rejects a maxWriteAttempts that is not a positive integer', () => {
    for (const maxWriteAttempts of [0, 1.5, Number.NaN]) {
      expect(() => createSettings(registry, { maxWriteAttempts })).toThrow(
        expect.objectContaining({ code: 'invalid_argument' }),
      );
    }
  });
});
