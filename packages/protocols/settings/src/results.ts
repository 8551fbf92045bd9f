import type { JsonValue, ValidationIssue } from '@parley/core';
import type { SettingScope } from './define.js';
import type { SettingsRegistry } from './registry-types.js';
import type { SettingsSnapshot } from './snapshot.js';

/**
 * The codes of a {@link SettingsRefusal}: the expected "no"s to a write.
 *
 * @example
 * ```ts
 * import { SETTINGS_REFUSAL_CODES } from '@parley/settings';
 *
 * console.log(SETTINGS_REFUSAL_CODES.includes('invalid_value')); // true
 * ```
 */
export const SETTINGS_REFUSAL_CODES = [
  'unknown_key',
  'invalid_value',
  'scope_mismatch',
  'mutually_exclusive',
  'version_mismatch',
] as const;

/**
 * A write refused as data, with what the caller needs to tell the user or the model why: `message`
 * says it in words, the other fields as data.
 *
 * @example
 * ```ts
 * import type { SettingsRefusal } from '@parley/settings';
 *
 * function explain(refusal: SettingsRefusal): string {
 *   return refusal.code === 'invalid_value' ? `${refusal.key}: ${refusal.issues[0]?.message}` : refusal.code;
 * }
 * ```
 */
export type SettingsRefusal =
  | { readonly ok: false; readonly code: 'unknown_key'; readonly message: string; readonly key: string }
  | {
      readonly ok: false;
      readonly code: 'invalid_value';
      readonly message: string;
      readonly key: string;
      readonly issues: readonly ValidationIssue[];
    }
  | {
      readonly ok: false;
      readonly code: 'scope_mismatch';
      readonly message: string;
      readonly key: string;
      readonly scope: SettingScope;
    }
  | {
      readonly ok: false;
      readonly code: 'mutually_exclusive';
      readonly message: string;
      readonly key: string;
      readonly conflictsWith: string;
    }
  | {
      readonly ok: false;
      readonly code: 'version_mismatch';
      readonly message: string;
      readonly expectedVersion: number;
      readonly version: number;
    };

/**
 * The result of a write: the fresh snapshot of the target, or a refusal.
 *
 * @example
 * ```ts
 * import type { SettingsResult } from '@parley/settings';
 *
 * const refused: SettingsResult = { ok: false, code: 'unknown_key', message: 'Unknown setting "context.nope"', key: 'context.nope' };
 * ```
 */
export type SettingsResult<TRegistry extends SettingsRegistry = SettingsRegistry> =
  | { readonly ok: true; readonly snapshot: SettingsSnapshot<TRegistry> }
  | SettingsRefusal;

/**
 * Options of a write.
 *
 * @example
 * ```ts
 * import type { SettingsWriteOptions } from '@parley/settings';
 *
 * const options: SettingsWriteOptions = { expectedVersion: 7 }; // snapshot.version.campaign the user saw
 * ```
 */
export interface SettingsWriteOptions {
  /**
   * Commit only if the target layer is still at this version (`snapshot.version.campaign`, or
   * `.global` for {@link GLOBAL}); otherwise refuse with `version_mismatch`. Without it, a write
   * that races another is retried on the fresh layer, so neither is lost.
   */
  readonly expectedVersion?: number;
}

/**
 * One changed key of a `changed` event; `value` is `undefined` when the key was reset.
 *
 * @example
 * ```ts
 * import type { SettingChange } from '@parley/settings';
 *
 * const change: SettingChange = { key: 'context.compress_enabled', previous: undefined, value: false };
 * ```
 */
export interface SettingChange {
  readonly key: string;
  readonly previous: JsonValue | undefined;
  readonly value: JsonValue | undefined;
}

/**
 * The events of a settings service (this instance's writes and reads only).
 *
 * @example
 * ```ts
 * import type { SettingsEvents } from '@parley/settings';
 *
 * const log = (event: SettingsEvents['changed']): string => `${event.campaignId ?? 'global'} v${event.version}`;
 * ```
 */
export interface SettingsEvents {
  /** A write committed; `campaignId` is `null` for the global layer. */
  changed: {
    readonly campaignId: string | null;
    readonly changes: readonly SettingChange[];
    readonly version: number;
    readonly at: number;
  };
  /** A stored value failed its (possibly newer) schema while building a snapshot; the next layer or the default was used. */
  ignored: {
    readonly campaignId: string | null;
    readonly key: string;
    readonly source: 'campaign' | 'global';
    readonly issues: readonly ValidationIssue[];
  };
}
