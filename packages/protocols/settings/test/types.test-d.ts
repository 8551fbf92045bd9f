import type { ValidationIssue } from '@parley/core';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  createSettings,
  defineSetting,
  defineSettings,
  GLOBAL,
  type SettingEntry,
  type SettingKeyOf,
  type SettingsResult,
  type SettingsSnapshot,
  type SettingValueOf,
  type SettingValuesOf,
  trpgSettings,
} from '../src/index.js';

describe('registry inference', () => {
  it('infers the keys and value types of the V1 set', () => {
    expectTypeOf<SettingKeyOf<typeof trpgSettings>>().toEqualTypeOf<
      | 'context.full_context_enabled'
      | 'context.compress_enabled'
      | 'rules.hp_zero_ends_game'
      | 'rollback.max_checkpoints'
      | 'dialog.manual_type'
      | 'conflict.intercept_output'
      | 'conflict.retry_with_debug'
      | 'conflict.max_retries'
    >();
    expectTypeOf<SettingValueOf<typeof trpgSettings, 'dialog.manual_type'>>().toEqualTypeOf<
      'scene' | 'action' | 'rules' | 'free_chat'
    >();
    expectTypeOf<SettingValuesOf<typeof trpgSettings>['rollback.max_checkpoints']>().toEqualTypeOf<number>();
  });

  it('checks the default against the schema', () => {
    // @ts-expect-error the default must be a boolean
    defineSetting({ key: 'a.b', schema: z.boolean(), default: 'yes' });
    // @ts-expect-error no such scope
    defineSetting({ key: 'a.b', schema: z.boolean(), default: true, scope: 'session' });
  });

  it('accepts relations only between known boolean settings', () => {
    const defs = [
      defineSetting({ key: 'a.one', schema: z.boolean(), default: false }),
      defineSetting({ key: 'a.two', schema: z.boolean(), default: false }),
      defineSetting({ key: 'a.n', schema: z.number(), default: 0 }),
    ] as const;
    defineSettings(defs, { relations: [{ kind: 'exclusive', keys: ['a.one', 'a.two'] }] });
    // @ts-expect-error 'a.n' is not a boolean setting
    defineSettings(defs, { relations: [{ kind: 'precedence', winner: 'a.one', over: 'a.n' }] });
    // @ts-expect-error 'a.nope' is not a key
    defineSettings(defs, { relations: [{ kind: 'exclusive', keys: ['a.one', 'a.nope'] }] });
  });
});

describe('snapshot', () => {
  it('types get by key and refuses an unknown key at compile time', async () => {
    const snap = await createSettings(trpgSettings).snapshot('c1');
    expectTypeOf(snap).toEqualTypeOf<SettingsSnapshot<typeof trpgSettings>>();
    expectTypeOf(snap.get('context.compress_enabled')).toEqualTypeOf<boolean>();
    expectTypeOf(snap.get('rollback.max_checkpoints')).toEqualTypeOf<number>();
    expectTypeOf(snap.entry('dialog.manual_type')).toEqualTypeOf<
      SettingEntry<'scene' | 'action' | 'rules' | 'free_chat'>
    >();
    expectTypeOf(snap.values['rules.hp_zero_ends_game']).toEqualTypeOf<boolean>();
    // @ts-expect-error unknown key
    snap.get('context.compress');
    // @ts-expect-error values are read-only
    snap.values['rules.hp_zero_ends_game'] = true;
  });
});

describe('writes', () => {
  it('types set by key and value', async () => {
    const settings = createSettings(trpgSettings);
    expectTypeOf(settings.set('c1', 'dialog.manual_type', 'scene')).resolves.toEqualTypeOf<
      SettingsResult<typeof trpgSettings>
    >();
    await settings.set(GLOBAL, 'rollback.max_checkpoints', 3);
    // @ts-expect-error wrong value type
    await settings.set('c1', 'context.compress_enabled', 'yes');
    // @ts-expect-error not an enum member
    await settings.set('c1', 'dialog.manual_type', 'combat');
    // @ts-expect-error unknown key
    await settings.set('c1', 'context.nope', true);
    // @ts-expect-error unknown key in update
    await settings.update('c1', { 'context.nope': true });
    // @ts-expect-error unknown key in reset
    await settings.reset('c1', ['context.nope']);
    await settings.safeSet('c1', 'anything at all', { untrusted: true });
  });

  it('narrows a result on ok and on the refusal code', async () => {
    const result = await createSettings(trpgSettings).safeSet('c1', 'x', 1);
    if (result.ok) expectTypeOf(result.snapshot.get('context.compress_enabled')).toEqualTypeOf<boolean>();
    else if (result.code === 'invalid_value')
      expectTypeOf(result.issues).toEqualTypeOf<readonly ValidationIssue[]>();
    else if (result.code === 'version_mismatch') expectTypeOf(result.version).toEqualTypeOf<number>();
  });
});
