// zod/mini: the same validation as zod's classic API at a fraction of its bundle size. It carries
// no locale, so each schema says in its own words what it wants.
import * as z from 'zod/mini';
import { defineSetting, defineSettings } from '@parley/settings';

/**
 * The V1 settings of the reference TRPG agent spec (section 4.3), ready to use or to copy: the
 * context mode (full context takes precedence over compression), the HP-zero rule, the rollback
 * checkpoint limit (global), the manually chosen dialog type, and the conflict loop's switches and
 * K of section 7.2 (`conflict.intercept_output`, `conflict.retry_with_debug`, `conflict.max_retries`
 * — what `@parley/conflict`'s `policy` option reads each attempt).
 *
 * Use it as is for a TRPG host, or as the model for a host's own registry.
 *
 * It lived in `@parley/settings` until the domain presets moved to this example; copy this file to
 * use it (`createSettings(trpgSettings)`).
 */
export const trpgSettings = /* @__PURE__ */ defineTrpgSettings();

/** Builds the V1 registry; a pure call, so bundlers drop it when `trpgSettings` is unused. */
function defineTrpgSettings() {
  return defineSettings(
    [
      defineSetting({
        key: 'context.full_context_enabled',
        schema: z.boolean('must be true or false'),
        default: false,
        effects: ['context'],
        ui: { control: 'toggle', label: 'Send the full context', help: 'Takes precedence over compression.' },
      }),
      defineSetting({
        key: 'context.compress_enabled',
        schema: z.boolean('must be true or false'),
        default: true,
        effects: ['context'],
        ui: { control: 'toggle', label: 'Compress older turns' },
      }),
      defineSetting({
        key: 'rules.hp_zero_ends_game',
        schema: z.boolean('must be true or false'),
        default: false,
        effects: ['rules'],
        ui: { control: 'toggle', label: 'HP 0 ends the game' },
      }),
      defineSetting({
        key: 'rollback.max_checkpoints',
        schema: z
          .int('must be a whole number')
          .check(z.minimum(0, 'must be at least 0'), z.maximum(100, 'must be at most 100')),
        default: 0,
        scope: 'global',
        effects: ['storage'],
        ui: { control: 'number', label: 'Rollback checkpoints kept', help: '0 disables rollback (V1).' },
      }),
      defineSetting({
        key: 'dialog.manual_type',
        schema: z.enum(
          ['scene', 'action', 'rules', 'free_chat'],
          'must be scene, action, rules or free_chat',
        ),
        default: 'free_chat',
        effects: ['routing'],
        ui: { control: 'select', label: 'Dialog type', options: ['scene', 'action', 'rules', 'free_chat'] },
      }),
      defineSetting({
        key: 'conflict.intercept_output',
        schema: z.boolean('must be true or false'),
        default: true,
        effects: ['rules'],
        ui: {
          control: 'toggle',
          label: 'Check outputs against the state',
          help: 'intercept_output (section 7.2).',
        },
      }),
      defineSetting({
        key: 'conflict.retry_with_debug',
        schema: z.boolean('must be true or false'),
        default: true,
        effects: ['rules'],
        ui: {
          control: 'toggle',
          label: 'Retry a conflict with conflict_debug',
          help: 'Off: report at once.',
        },
      }),
      defineSetting({
        key: 'conflict.max_retries',
        schema: z
          .int('must be a whole number')
          .check(z.minimum(0, 'must be at least 0'), z.maximum(100, 'must be at most 100')),
        default: 2,
        effects: ['rules'],
        ui: {
          control: 'number',
          label: 'Retries before a conflict report (K)',
          help: 'The spec suggests 1–2.',
        },
      }),
    ],
    {
      relations: [
        { kind: 'precedence', winner: 'context.full_context_enabled', over: 'context.compress_enabled' },
      ],
    },
  );
}
