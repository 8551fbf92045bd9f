/**
 * Typed setting definitions with scopes, effect tags and relations, and a settings service that
 * keeps campaign and global layers in a core `Store` and hands each turn a fresh, immutable,
 * versioned snapshot.
 *
 * @packageDocumentation
 * @module @parley/settings
 */
export { defineSetting, SETTING_SCOPES, SETTING_EFFECT_TAGS } from './define.js';
export { defineSettings } from './registry.js';
export type {
  SettingDefinition,
  SettingInit,
  SettingScope,
  SettingEffectTag,
  SettingUiHint,
  SettingRelation,
} from './define.js';
export type {
  SettingsRegistry,
  SettingKeyOf,
  SettingValueOf,
  SettingInputOf,
  SettingValuesOf,
  DefinitionMap,
  DefinitionMapOf,
  BooleanKeyOf,
} from './registry-types.js';
export { createSettings } from './settings.js';
export type { Settings, SettingsOptions } from './settings-types.js';
export { GLOBAL } from './target.js';
export type { SettingsTarget } from './target.js';
export { SETTINGS_REFUSAL_CODES } from './results.js';
export type {
  SettingsRefusal,
  SettingsResult,
  SettingsWriteOptions,
  SettingsEvents,
  SettingChange,
} from './results.js';
export type {
  SettingsSnapshot,
  SettingsSnapshotJson,
  SettingEntry,
  SettingSource,
  SettingsVersion,
} from './snapshot.js';
export { SettingsError, SETTINGS_ERROR_CODES } from './errors.js';
export type { SettingsErrorCode } from './errors.js';
