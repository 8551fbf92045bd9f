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
} from '../src/index.js';

const sample = defineSettings([
  defineSetting({ key: 'context.compress_enabled', schema: z.boolean(), default: true }),
  defineSetting({ key: 'review.required', schema: z.boolean(), default: false }),
  defineSetting({ key: 'history.max_turns', schema: z.number().int(), default: 20, scope: 'global' }),
  defineSetting({ key: 'reply.tone', schema: z.enum(['plain', 'formal', 'brief']), default: 'plain' }),
]);

describe('registry inference', () => {
  it('infers the keys and value types of a registry', () => {
    expectTypeOf<SettingKeyOf<typeof sample>>().toEqualTypeOf<
      'context.compress_enabled' | 'review.required' | 'history.max_turns' | 'reply.tone'
    >();
    expectTypeOf<SettingValueOf<typeof sample, 'reply.tone'>>().toEqualTypeOf<'plain' | 'formal' | 'brief'>();
    expectTypeOf<SettingValuesOf<typeof sample>['history.max_turns']>().toEqualTypeOf<number>();
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
    const snap = await createSettings(sample).snapshot('c1');
    expectTypeOf(snap).toEqualTypeOf<SettingsSnapshot<typeof sample>>();
    expectTypeOf(snap.get('context.compress_enabled')).toEqualTypeOf<boolean>();
    expectTypeOf(snap.get('history.max_turns')).toEqualTypeOf<number>();
    expectTypeOf(snap.entry('reply.tone')).toEqualTypeOf<SettingEntry<'plain' | 'formal' | 'brief'>>();
    expectTypeOf(snap.values['review.required']).toEqualTypeOf<boolean>();
    // @ts-expect-error unknown key
    snap.get('context.compress');
    // @ts-expect-error values are read-only
    snap.values['review.required'] = true;
  });
});

describe('writes', () => {
  it('types set by key and value', async () => {
    const settings = createSettings(sample);
    expectTypeOf(settings.set('c1', 'reply.tone', 'formal')).resolves.toEqualTypeOf<
      SettingsResult<typeof sample>
    >();
    await settings.set(GLOBAL, 'history.max_turns', 3);
    // @ts-expect-error wrong value type
    await settings.set('c1', 'context.compress_enabled', 'yes');
    // @ts-expect-error not an enum member
    await settings.set('c1', 'reply.tone', 'combat');
    // @ts-expect-error unknown key
    await settings.set('c1', 'context.nope', true);
    // @ts-expect-error unknown key in update
    await settings.update('c1', { 'context.nope': true });
    // @ts-expect-error unknown key in reset
    await settings.reset('c1', ['context.nope']);
    await settings.safeSet('c1', 'anything at all', { untrusted: true });
  });

  it('narrows a result on ok and on the refusal code', async () => {
    const result = await createSettings(sample).safeSet('c1', 'x', 1);
    if (result.ok) expectTypeOf(result.snapshot.get('context.compress_enabled')).toEqualTypeOf<boolean>();
    else if (result.code === 'invalid_value')
      expectTypeOf(result.issues).toEqualTypeOf<readonly ValidationIssue[]>();
    else if (result.code === 'version_mismatch') expectTypeOf(result.version).toEqualTypeOf<number>();
  });
});
