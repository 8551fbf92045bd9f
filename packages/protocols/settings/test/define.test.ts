import { isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  defineSetting,
  defineSettings,
  SETTING_EFFECT_TAGS,
  SETTING_SCOPES,
  SETTINGS_ERROR_CODES,
  SettingsError,
  type SettingRelation,
} from '../src/index.js';

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (err) {
    if (isParleyError(err)) return err.code;
    throw err;
  }
  return undefined;
}

const flag = (key: string, value = false) => defineSetting({ key, schema: z.boolean(), default: value });

describe('defineSetting', () => {
  it('fills scope, effects and ui and freezes the definition', () => {
    const def = defineSetting({ key: 'a.b', schema: z.array(z.number()), default: [1] });
    expect(def).toMatchObject({ key: 'a.b', scope: 'campaign', effects: [], ui: {}, default: [1] });
    expect(Object.isFrozen(def) && Object.isFrozen(def.default)).toBe(true);
  });

  it('copies the default, so mutating the original changes nothing', () => {
    const original = { depth: 2 };
    const def = defineSetting({ key: 'a.b', schema: z.object({ depth: z.number() }), default: original });
    original.depth = 9;
    expect(def.default).toEqual({ depth: 2 });
  });

  it('throws invalid_definition for a malformed key', () => {
    for (const key of ['', 'a..b', '1abc', '__proto__', 'has space', 'x.']) {
      expect(codeOf(() => flag(key))).toBe('invalid_definition');
    }
  });

  it('throws invalid_definition when the schema is not a Standard Schema', () => {
    const schema = { parse: () => true } as unknown as z.ZodBoolean;
    expect(codeOf(() => defineSetting({ key: 'a.b', schema, default: true }))).toBe('invalid_definition');
  });

  it('throws invalid_definition for an unknown scope', () => {
    const scope = 'session' as 'global';
    expect(codeOf(() => defineSetting({ key: 'a.b', schema: z.boolean(), default: true, scope }))).toBe(
      'invalid_definition',
    );
  });

  it('throws invalid_definition when the default fails its schema', () => {
    expect(() => defineSetting({ key: 'a.b', schema: z.number().max(3), default: 4 })).toThrow(SettingsError);
    expect(codeOf(() => defineSetting({ key: 'a.b', schema: z.number().max(3), default: 4 }))).toBe(
      'invalid_definition',
    );
  });

  it('throws invalid_definition when the default is not JSON', () => {
    expect(codeOf(() => defineSetting({ key: 'a.b', schema: z.bigint(), default: 1n }))).toBe(
      'invalid_definition',
    );
  });

  it('accepts an asynchronous schema, leaving its default unchecked', () => {
    const schema = z.string().refine(async (value) => value.length > 0);
    expect(defineSetting({ key: 'a.b', schema, default: 'x' }).default).toBe('x');
  });
});

describe('defineSettings', () => {
  it('builds a frozen registry keyed by setting key', () => {
    const registry = defineSettings([flag('a.one'), flag('a.two')]);
    expect(registry.keys).toEqual(['a.one', 'a.two']);
    expect(registry.definitions['a.two']?.key).toBe('a.two');
    expect(Object.isFrozen(registry) && Object.isFrozen(registry.definitions)).toBe(true);
    expect(registry.has('a.one')).toBe(true);
    expect(registry.has('toString')).toBe(false);
  });

  it('throws duplicate_key when two definitions share a key', () => {
    expect(codeOf(() => defineSettings([flag('a.one'), flag('a.one')]))).toBe('duplicate_key');
  });

  it('throws invalid_definition for an item that is not a definition', () => {
    const junk = [null] as unknown as [ReturnType<typeof flag>];
    expect(codeOf(() => defineSettings(junk))).toBe('invalid_definition');
  });

  describe('relations', () => {
    const defs = [flag('a.one'), flag('a.two'), flag('a.three', true), flag('a.four', true)] as const;
    const number = defineSetting({ key: 'a.n', schema: z.number(), default: 0 });
    const attempt = (relation: SettingRelation) =>
      codeOf(() => defineSettings([...defs, number], { relations: [relation] as never }));

    it('accepts exclusive and precedence relations between known boolean settings', () => {
      const registry = defineSettings(defs, {
        relations: [
          { kind: 'exclusive', keys: ['a.one', 'a.two', 'a.three'] },
          { kind: 'precedence', winner: 'a.one', over: 'a.four' },
        ],
      });
      expect(registry.relations).toHaveLength(2);
      expect(Object.isFrozen(registry.relations[0])).toBe(true);
    });

    it('throws invalid_relation for an unknown key', () => {
      expect(attempt({ kind: 'exclusive', keys: ['a.one', 'a.nope'] })).toBe('invalid_relation');
    });

    it('throws invalid_relation for a setting that is not boolean', () => {
      expect(attempt({ kind: 'precedence', winner: 'a.one', over: 'a.n' })).toBe('invalid_relation');
    });

    it('throws invalid_relation for fewer than two distinct keys', () => {
      expect(attempt({ kind: 'exclusive', keys: ['a.one'] })).toBe('invalid_relation');
      expect(attempt({ kind: 'precedence', winner: 'a.one', over: 'a.one' })).toBe('invalid_relation');
    });

    it('throws invalid_relation for exclusive settings whose defaults are both true', () => {
      expect(attempt({ kind: 'exclusive', keys: ['a.three', 'a.four'] })).toBe('invalid_relation');
    });

    it('throws invalid_relation for an unknown kind', () => {
      expect(attempt({ kind: 'implies', winner: 'a.one', over: 'a.two' } as unknown as SettingRelation)).toBe(
        'invalid_relation',
      );
    });
  });
});

describe('constants', () => {
  it('lists the scopes, effect tags and error codes', () => {
    expect(SETTING_SCOPES).toEqual(['campaign', 'global']);
    expect(SETTING_EFFECT_TAGS).toEqual(['context', 'rules', 'routing', 'ui', 'storage']);
    expect(SETTINGS_ERROR_CODES).toContain('write_conflict');
  });
});
