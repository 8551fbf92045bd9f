// The TRPG preset's schemas are zod/mini (a fraction of zod's classic bundle), which has no
// locale: each schema names what it wants, so a refused value never reads only "Invalid input".
import { describe, expect, it } from 'vitest';
import { trpgSettings } from '../src/index.js';

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
