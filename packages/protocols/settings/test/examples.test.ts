// biome-ignore-all lint/correctness/noUnusedVariables: examples declare values to show their types
// Every TSDoc @example of @parley/settings, compiled and run; each console.log of an example is an assertion here.
import { createManualClock, createMemoryStore, isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type BooleanKeyOf,
  createSettings,
  type DefinitionMap,
  type DefinitionMapOf,
  defineSetting,
  defineSettings,
  GLOBAL,
  SETTING_EFFECT_TAGS,
  SETTING_SCOPES,
  type SettingChange,
  type SettingDefinition,
  type SettingEffectTag,
  type SettingEntry,
  type SettingInit,
  type SettingInputOf,
  type SettingKeyOf,
  type SettingRelation,
  type SettingScope,
  type SettingSource,
  type Settings,
  type SettingsErrorCode,
  type SettingsEvents,
  type SettingsOptions,
  type SettingsRefusal,
  type SettingsRegistry,
  type SettingsResult,
  type SettingsSnapshot,
  type SettingsSnapshotJson,
  type SettingsTarget,
  type SettingsVersion,
  type SettingsWriteOptions,
  type SettingUiHint,
  type SettingValueOf,
  type SettingValuesOf,
  SETTINGS_ERROR_CODES,
  SETTINGS_REFUSAL_CODES,
  SettingsError,
} from '../src/index.js';

// The registries the examples define (a generic three-key one, and the context pair with its relation).
const registry = defineSettings([
  defineSetting({ key: 'reply.tone', schema: z.enum(['plain', 'formal']), default: 'plain' }),
  defineSetting({ key: 'history.max_turns', schema: z.number().int(), default: 20, scope: 'global' }),
  defineSetting({ key: 'review.required', schema: z.boolean(), default: false }),
]);
const contextRegistry = defineSettings(
  [
    defineSetting({ key: 'context.full_context_enabled', schema: z.boolean(), default: false }),
    defineSetting({ key: 'context.compress_enabled', schema: z.boolean(), default: true }),
  ],
  {
    relations: [
      { kind: 'precedence', winner: 'context.full_context_enabled', over: 'context.compress_enabled' },
    ],
  },
);

describe('define.ts examples', () => {
  it('SETTING_SCOPES', () => {
    expect(SETTING_SCOPES).toEqual(['campaign', 'global']);
  });

  it('SettingScope', () => {
    const scope: SettingScope = 'global';
    expect(SETTING_SCOPES).toContain(scope);
  });

  it('SETTING_EFFECT_TAGS', () => {
    expect(SETTING_EFFECT_TAGS.includes('context')).toBe(true);
  });

  it('SettingEffectTag', () => {
    const tags: SettingEffectTag[] = ['context', 'billing'];
    expect(tags).toHaveLength(2);
  });

  it('SettingUiHint', () => {
    const hint: SettingUiHint = { control: 'select', label: 'Dialog type', options: ['scene', 'action'] };
    expect(hint.control).toBe('select');
  });

  it('SettingDefinition', () => {
    const compress: SettingDefinition<'context.compress_enabled', z.ZodBoolean> = defineSetting({
      key: 'context.compress_enabled',
      schema: z.boolean(),
      default: true,
    });
    expect(compress.default).toBe(true);
  });

  it('SettingInit', () => {
    const schema = z.enum(['scene', 'action']);
    const init: SettingInit<'dialog.manual_type', typeof schema> = {
      key: 'dialog.manual_type',
      schema,
      default: 'scene',
    };
    expect(defineSetting(init).key).toBe('dialog.manual_type');
  });

  it('SettingRelation', () => {
    const relation: SettingRelation = {
      kind: 'precedence',
      winner: 'context.full_context_enabled',
      over: 'context.compress_enabled',
    };
    expect(contextRegistry.relations).toContainEqual(relation);
  });

  it('SettingsRegistry', () => {
    const registry: SettingsRegistry = defineSettings([
      defineSetting({ key: 'ui.theme', schema: z.string(), default: 'dark' }),
    ]);
    expect(registry.keys).toEqual(['ui.theme']);
  });

  it('SettingKeyOf, SettingValueOf, SettingInputOf, SettingValuesOf', () => {
    const key: SettingKeyOf<typeof registry> = 'review.required';
    const max: SettingValueOf<typeof registry, 'history.max_turns'> = 3;
    const tone: SettingInputOf<typeof registry, 'reply.tone'> = 'formal';
    type Values = SettingValuesOf<typeof registry>;
    const required: Values['review.required'] = true;
    expect(registry.has(key)).toBe(true);
  });

  it('DefinitionMap, DefinitionMapOf, BooleanKeyOf', () => {
    const definitions: DefinitionMap = registry.definitions;
    const theme = defineSetting({ key: 'ui.theme', schema: z.string(), default: 'dark' });
    type Map = DefinitionMapOf<[typeof theme]>;
    const definition: Map['ui.theme'] = theme;
    const key: BooleanKeyOf<typeof registry.definitions> = 'review.required';
    expect(definitions[key]?.default).toBe(false);
  });

  it('defineSetting', () => {
    const compress = defineSetting({
      key: 'context.compress_enabled',
      schema: z.boolean(),
      default: true,
      effects: ['context'],
      ui: { control: 'toggle', label: 'Compress older turns' },
    });
    expect(compress.scope).toBe('campaign');
  });

  it('defineSettings', () => {
    const registry = defineSettings(
      [
        defineSetting({ key: 'context.full_context_enabled', schema: z.boolean(), default: false }),
        defineSetting({ key: 'context.compress_enabled', schema: z.boolean(), default: true }),
      ],
      {
        relations: [
          { kind: 'exclusive', keys: ['context.full_context_enabled', 'context.compress_enabled'] },
        ],
      },
    );
    expect([registry.has('context.compress_enabled'), registry.has('context.other')]).toEqual([true, false]);
  });
});

describe('errors.ts examples', () => {
  it('SETTINGS_ERROR_CODES and SettingsErrorCode', () => {
    const code: SettingsErrorCode = 'write_conflict';
    expect(SETTINGS_ERROR_CODES.includes('unknown_key')).toBe(true);
    expect(SETTINGS_ERROR_CODES).toContain(code);
  });

  it('SettingsError', () => {
    let caught: unknown;
    try {
      defineSetting({ key: 'ui.volume', schema: z.number().max(10), default: 11 });
    } catch (err) {
      caught = err;
    }
    expect([caught instanceof SettingsError, isParleyError(caught, 'invalid_definition')]).toEqual([
      true,
      true,
    ]);
  });
});

describe('settings.ts examples', () => {
  it('GLOBAL', async () => {
    const settings = createSettings(registry);
    await settings.set(GLOBAL, 'review.required', true);
    expect((await settings.snapshot('c1')).entry('review.required').source).toBe('global');
  });

  it('SettingsTarget', () => {
    const targets: SettingsTarget[] = ['campaign-42', GLOBAL];
    expect(targets).toHaveLength(2);
  });

  it('SETTINGS_REFUSAL_CODES', () => {
    expect(SETTINGS_REFUSAL_CODES.includes('invalid_value')).toBe(true);
  });

  it('SettingsRefusal and SettingsResult', () => {
    function explain(refusal: SettingsRefusal): string {
      return refusal.code === 'invalid_value'
        ? `${refusal.key}: ${refusal.issues[0]?.message}`
        : refusal.code;
    }
    const refused: SettingsResult = {
      ok: false,
      code: 'unknown_key',
      message: 'Unknown setting "context.nope"',
      key: 'context.nope',
    };
    expect(refused.ok ? '' : explain(refused)).toBe('unknown_key');
  });

  it('SettingsWriteOptions, SettingChange, SettingsEvents', () => {
    const options: SettingsWriteOptions = { expectedVersion: 7 };
    const change: SettingChange = { key: 'context.compress_enabled', previous: undefined, value: false };
    const log = (event: SettingsEvents['changed']): string =>
      `${event.campaignId ?? 'global'} v${event.version}`;
    expect(log({ campaignId: null, changes: [change], version: options.expectedVersion ?? 0, at: 0 })).toBe(
      'global v7',
    );
  });

  it('SettingsOptions', () => {
    const clock = createManualClock();
    const options: SettingsOptions = {
      store: createMemoryStore({ clock }),
      clock,
      keyPrefix: 'app:settings:',
    };
    expect(createSettings(registry, options).registry).toBe(registry);
  });

  it('Settings', () => {
    const settings: Settings<typeof registry> = createSettings(registry);
    expect(settings.registry.keys.length).toBe(3);
  });

  it('createSettings', async () => {
    const clock = createManualClock();
    const settings = createSettings(contextRegistry, { store: createMemoryStore({ clock }), clock });
    const before = await settings.snapshot('c1');
    const result = await settings.set('c1', 'context.full_context_enabled', true);
    const after = await settings.snapshot('c1');
    expect([
      result.ok,
      before.get('context.compress_enabled'),
      after.get('context.compress_enabled'),
    ]).toEqual([true, true, false]);
    expect(after.entry('context.compress_enabled').suppressedBy).toBe('context.full_context_enabled');
  });
});

describe('snapshot.ts examples', () => {
  it('SettingSource, SettingEntry, SettingsVersion, SettingsSnapshotJson', () => {
    const source: SettingSource = 'campaign';
    const entry: SettingEntry<boolean> = {
      value: false,
      source,
      suppressedBy: 'context.full_context_enabled',
    };
    const version: SettingsVersion = { global: 3, campaign: 7 };
    const json: SettingsSnapshotJson = {
      campaignId: 'c1',
      version: { global: 0, campaign: 2 },
      takenAt: 1_700_000_000_000,
      entries: { 'context.compress_enabled': { value: true, source: 'default' } },
    };
    expect([entry.value, version.campaign, json.entries['context.compress_enabled']?.value]).toEqual([
      false,
      7,
      true,
    ]);
  });

  it('SettingsSnapshot', async () => {
    const settings = createSettings(contextRegistry);
    const snap: SettingsSnapshot<typeof contextRegistry> = await settings.snapshot('c1');
    const compress: boolean = snap.get('context.compress_enabled');
    expect([compress, snap.entry('context.compress_enabled').source]).toEqual([true, 'default']);
  });
});

describe('README snippet', () => {
  it('runs the README snippet', async () => {
    const registry = defineSettings(
      [
        defineSetting({
          key: 'context.full_context_enabled',
          schema: z.boolean(),
          default: false,
          effects: ['context'],
        }),
        defineSetting({
          key: 'context.compress_enabled',
          schema: z.boolean(),
          default: true,
          effects: ['context'],
        }),
        defineSetting({
          key: 'rollback.max_checkpoints',
          schema: z.number().int().min(0),
          default: 0,
          scope: 'global',
        }),
      ],
      {
        relations: [
          { kind: 'exclusive', keys: ['context.full_context_enabled', 'context.compress_enabled'] },
        ],
      },
    );

    const clock = createManualClock();
    const settings = createSettings(registry, { store: createMemoryStore({ clock }), clock });
    const changed: [string | null, string[]][] = [];
    settings.on('changed', ({ campaignId, changes }) =>
      changed.push([campaignId, changes.map((c) => c.key)]),
    );

    await settings.set(GLOBAL, 'rollback.max_checkpoints', 5);
    const turn1 = await settings.snapshot('campaign-1');

    const refused = await settings.safeSet('campaign-1', 'context.full_context_enabled', true);
    expect(refused).toEqual({
      ok: false,
      code: 'mutually_exclusive',
      message: '"context.full_context_enabled" cannot be on while "context.compress_enabled" is on',
      key: 'context.full_context_enabled',
      conflictsWith: 'context.compress_enabled',
    });

    await settings.update(
      'campaign-1',
      { 'context.compress_enabled': false, 'context.full_context_enabled': true },
      { expectedVersion: turn1.version.campaign },
    );

    const turn2 = await settings.snapshot('campaign-1');
    const full: boolean = turn2.get('context.full_context_enabled');
    expect([turn1.get('context.full_context_enabled'), full]).toEqual([false, true]);
    expect(turn2.entry('rollback.max_checkpoints')).toEqual({ value: 5, source: 'global' });
    expect(turn2.toJSON().version.campaign).toBeGreaterThan(0);

    expect(await settings.safeSet('campaign-1', 'context.nope', 1)).toMatchObject({ code: 'unknown_key' });
    expect(await settings.safeSet('campaign-1', 'rollback.max_checkpoints', 3)).toMatchObject({
      code: 'scope_mismatch',
    });
    expect(changed).toEqual([
      [null, ['rollback.max_checkpoints']],
      ['campaign-1', ['context.compress_enabled', 'context.full_context_enabled']],
    ]);
  });
});
