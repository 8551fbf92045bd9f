// The TRPG registry (moved here from @parley/settings): its keys, defaults and relation, and its
// messages. Its schemas are zod/mini (a fraction of zod's classic bundle), which has no
// locale: each schema names what it wants, so a refused value never reads only "Invalid input".
import { describe, expect, it } from 'vitest';
import { createSettings } from '@parley/settings';
import { trpgSettings } from '../src/settings.js';

const messages = (key: keyof typeof trpgSettings.definitions, value: unknown): string[] => {
  const result = trpgSettings.definitions[key].schema['~standard'].validate(value) as {
    issues?: { message: string }[];
  };
  return (result.issues ?? []).map((issue) => issue.message);
};

describe('the TRPG preset says what is wrong in plain words', () => {
  it.each([
    ['a toggle that is not a boolean', 'rules.hp_zero_ends_game', 'yes', ['must be true or false']],
    ['a checkpoint count that is not whole', 'rollback.max_checkpoints', 1.5, ['must be a whole number']],
    ['a negative checkpoint count', 'rollback.max_checkpoints', -1, ['must be at least 0']],
    ['a checkpoint count over 100', 'rollback.max_checkpoints', 101, ['must be at most 100']],
    ['an unknown dialog type', 'dialog.manual_type', 'combat', ['must be scene, action, rules or free_chat']],
  ] as const)('refuses %s', (_, key, value, expected) => {
    expect(messages(key, value)).toEqual(expected);
  });

  it('accepts the bounds and every dialog type', () => {
    expect([0, 100].flatMap((n) => messages('rollback.max_checkpoints', n))).toEqual([]);
    expect(
      ['scene', 'action', 'rules', 'free_chat'].flatMap((t) => messages('dialog.manual_type', t)),
    ).toEqual([]);
  });
});

describe('the TRPG V1 registry', () => {
  it('ships the TRPG V1 keys with full context taking precedence over compression', () => {
    expect(trpgSettings.keys).toEqual([
      'context.full_context_enabled',
      'context.compress_enabled',
      'rules.hp_zero_ends_game',
      'rollback.max_checkpoints',
      'dialog.manual_type',
      'conflict.intercept_output',
      'conflict.retry_with_debug',
      'conflict.max_retries',
    ]);
    expect(trpgSettings.definitions['rollback.max_checkpoints'].scope).toBe('global');
    expect(trpgSettings.definitions['conflict.max_retries'].default).toBe(2);
    expect(trpgSettings.relations).toEqual([
      { kind: 'precedence', winner: 'context.full_context_enabled', over: 'context.compress_enabled' },
    ]);
  });

  it('reads the TRPG V1 defaults', async () => {
    const settings = createSettings(trpgSettings);
    const snap = await settings.snapshot('c1');
    expect(snap.values).toEqual({
      'context.full_context_enabled': false,
      'context.compress_enabled': true,
      'rules.hp_zero_ends_game': false,
      'rollback.max_checkpoints': 0,
      'dialog.manual_type': 'free_chat',
      'conflict.intercept_output': true,
      'conflict.retry_with_debug': true,
      'conflict.max_retries': 2,
    });
  });
});
