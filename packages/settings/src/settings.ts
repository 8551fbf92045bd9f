import {
  type Clock,
  createEmitter,
  createMemoryStore,
  type Emitter,
  type JsonValue,
  type Store,
  systemClock,
  validateAsync,
} from '@parley/core';
import type { SettingInputOf, SettingKeyOf, SettingsRegistry } from './registry-types.js';
import { SettingsError } from './errors.js';
import type { SettingChange, SettingsEvents, SettingsResult, SettingsWriteOptions } from './results.js';
import { exclusiveClash, sameJson, toJson, toLayer } from './internal/layers.js';
import { buildSnapshot, type Layer, type SettingsSnapshot } from './snapshot.js';

/**
 * The target that names the global layer in `snapshot`, `set`, `update`, `safeSet` and `reset`
 * (any other target is a campaign id).
 *
 * @example
 * ```ts
 * import { createSettings, GLOBAL, trpgSettings } from '@parley/settings';
 *
 * const settings = createSettings(trpgSettings);
 * await settings.set(GLOBAL, 'rules.hp_zero_ends_game', true);
 * console.log((await settings.snapshot('c1')).entry('rules.hp_zero_ends_game').source); // 'global'
 * ```
 */
export const GLOBAL: unique symbol = Symbol.for('@parley/settings.global');

/**
 * What a read or write applies to: a campaign id, or {@link GLOBAL}.
 *
 * @example
 * ```ts
 * import { GLOBAL, type SettingsTarget } from '@parley/settings';
 *
 * const targets: SettingsTarget[] = ['campaign-42', GLOBAL];
 * ```
 */
export type SettingsTarget = string | typeof GLOBAL;

/**
 * Options for {@link createSettings}.
 *
 * @example
 * ```ts
 * import { createManualClock, createMemoryStore } from '@parley/core';
 * import type { SettingsOptions } from '@parley/settings';
 *
 * const clock = createManualClock();
 * const options: SettingsOptions = { store: createMemoryStore({ clock }), clock, keyPrefix: 'trpg:settings:' };
 * ```
 */
export interface SettingsOptions {
  /** Where the layers live; a new in-memory store by default (nothing survives the process). */
  readonly store?: Store;
  /** Stamps snapshots and events; the system clock by default. */
  readonly clock?: Clock;
  /** Prefix of the store keys (`<prefix>global`, `<prefix>campaign:<id>`); `settings:` by default. */
  readonly keyPrefix?: string;
  /** How many times a write is retried when another writer commits first; 8 by default. */
  readonly maxWriteAttempts?: number;
  /** Called when an event listener throws (see `createEmitter`). */
  readonly onListenerError?: (error: unknown, event: string) => void;
}

/**
 * The settings service of one registry: layered values in a `Store`, typed snapshots, validated writes.
 *
 * @example
 * ```ts
 * import { createSettings, trpgSettings, type Settings } from '@parley/settings';
 *
 * const settings: Settings<typeof trpgSettings> = createSettings(trpgSettings);
 * console.log(settings.registry.keys.length); // 8
 * ```
 */
export interface Settings<TRegistry extends SettingsRegistry = SettingsRegistry> {
  readonly registry: TRegistry;
  /**
   * Reads the current values of a campaign (or of {@link GLOBAL}) into an immutable snapshot.
   * Take one per turn.
   * @throws SettingsError `invalid_argument` for an empty or non-string campaign id.
   */
  snapshot(target: SettingsTarget): Promise<SettingsSnapshot<TRegistry>>;
  /**
   * Sets one key of the target layer. Bad values are refused as data.
   * @throws SettingsError `unknown_key` for a key not in the registry; `invalid_argument` for a bad
   * target; `write_conflict` when other writers won `maxWriteAttempts` times in a row.
   */
  set<K extends SettingKeyOf<TRegistry>>(
    target: SettingsTarget,
    key: K,
    value: SettingInputOf<TRegistry, K>,
    options?: SettingsWriteOptions,
  ): Promise<SettingsResult<TRegistry>>;
  /**
   * Sets several keys of the target layer atomically (all or none).
   * @throws SettingsError as {@link Settings.set}.
   */
  update(
    target: SettingsTarget,
    values: { readonly [K in SettingKeyOf<TRegistry>]?: SettingInputOf<TRegistry, K> },
    options?: SettingsWriteOptions,
  ): Promise<SettingsResult<TRegistry>>;
  /**
   * Sets one key from untrusted input (a user, the model): an unknown key is refused as data too.
   * @throws SettingsError `invalid_argument` for a bad target; `write_conflict` as {@link Settings.set}.
   */
  safeSet(
    target: SettingsTarget,
    key: string,
    value: unknown,
    options?: SettingsWriteOptions,
  ): Promise<SettingsResult<TRegistry>>;
  /**
   * Removes the target layer's values of `keys` (all of them when omitted), so the next layer or the default applies.
   * @throws SettingsError as {@link Settings.set}.
   */
  reset(
    target: SettingsTarget,
    keys?: readonly SettingKeyOf<TRegistry>[],
    options?: SettingsWriteOptions,
  ): Promise<SettingsResult<TRegistry>>;
  /** Adds an event listener; returns a function that removes it. */
  on: Emitter<SettingsEvents>['on'];
}

/**
 * Creates the settings service of a registry over a core `Store`.
 *
 * Use one per process (or replica) and call `snapshot(campaignId)` at the start of every turn: a
 * change made mid-session shows in the next snapshot, never in one already taken. Values resolve
 * campaign → global → default; each write re-checks the registry's relations and commits with the
 * store's compare-and-set, retrying on the fresh layer when another writer got there first.
 *
 * @throws SettingsError `invalid_argument` when `maxWriteAttempts` is not a positive integer.
 * @example
 * ```ts
 * import { createManualClock, createMemoryStore } from '@parley/core';
 * import { createSettings, trpgSettings } from '@parley/settings';
 *
 * const clock = createManualClock();
 * const settings = createSettings(trpgSettings, { store: createMemoryStore({ clock }), clock });
 * const before = await settings.snapshot('c1');
 * const result = await settings.set('c1', 'context.full_context_enabled', true);
 * const after = await settings.snapshot('c1');
 * console.log(result.ok, before.get('context.compress_enabled'), after.get('context.compress_enabled')); // true true false
 * console.log(after.entry('context.compress_enabled').suppressedBy); // 'context.full_context_enabled'
 * ```
 */
export function createSettings<TRegistry extends SettingsRegistry>(
  registry: TRegistry,
  options: SettingsOptions = {},
): Settings<TRegistry> {
  const clock = options.clock ?? systemClock;
  const store = options.store ?? createMemoryStore({ clock });
  const prefix = options.keyPrefix ?? 'settings:';
  const maxAttempts = options.maxWriteAttempts ?? 8;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new SettingsError(
      'invalid_argument',
      `maxWriteAttempts must be an integer >= 1, got ${maxAttempts}`,
      {
        details: { name: 'maxWriteAttempts', value: maxAttempts },
      },
    );
  }
  const events = createEmitter<SettingsEvents>(
    options.onListenerError === undefined ? {} : { onListenerError: options.onListenerError },
  );
  type Snapshot = SettingsSnapshot<TRegistry>;

  const storeKey = (campaignId: string | null): string =>
    campaignId === null ? `${prefix}global` : `${prefix}campaign:${campaignId}`;

  async function read(campaignId: string | null): Promise<[Layer, Layer | undefined]> {
    const global = toLayer(await store.getEntry(storeKey(null)));
    return [global, campaignId === null ? undefined : toLayer(await store.getEntry(storeKey(campaignId)))];
  }

  async function snapshotOf(
    campaignId: string | null,
    global: Layer,
    campaign: Layer | undefined,
  ): Promise<Snapshot> {
    const built = await buildSnapshot(registry, campaignId, global, campaign, clock.now());
    for (const item of built.ignored) events.emit('ignored', { campaignId, ...item });
    return built.snapshot;
  }

  async function write(
    target: SettingsTarget,
    changes: readonly (readonly [key: string, value: unknown])[],
    trusted: boolean,
    options: SettingsWriteOptions = {},
  ): Promise<SettingsResult<TRegistry>> {
    const campaignId = toCampaignId(target);
    const next = new Map<string, JsonValue | undefined>();
    for (const [key, value] of changes) {
      if (!registry.has(key)) {
        if (trusted) throw new SettingsError('unknown_key', `Unknown setting "${key}"`, { details: { key } });
        return { ok: false, code: 'unknown_key', key };
      }
      const definition = registry.definitions[key] as TRegistry['definitions'][string]; // has(key) checked
      if (campaignId !== null && definition.scope === 'global') {
        return { ok: false, code: 'scope_mismatch', key, scope: 'global' };
      }
      if (value === RESET) {
        next.set(key, undefined);
        continue;
      }
      const checked = await validateAsync(definition.schema, value);
      if (!checked.ok) return { ok: false, code: 'invalid_value', key, issues: checked.issues };
      const json = toJson(checked.value);
      if (json === undefined) {
        return {
          ok: false,
          code: 'invalid_value',
          key,
          issues: [{ path: [], pathText: '', message: 'Not JSON' }],
        };
      }
      next.set(key, json);
    }

    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      const [global, campaign] = await read(campaignId);
      const layer = campaign ?? global;
      if (options.expectedVersion !== undefined && options.expectedVersion !== layer.version) {
        return {
          ok: false,
          code: 'version_mismatch',
          expectedVersion: options.expectedVersion,
          version: layer.version,
        };
      }
      const values: Record<string, JsonValue> = { ...layer.values };
      const diff: SettingChange[] = [];
      for (const [key, value] of next) {
        const previous = Object.hasOwn(values, key) ? values[key] : undefined;
        if (value === undefined) delete values[key];
        else values[key] = value;
        if (!sameJson(previous, value)) diff.push({ key, previous, value });
      }
      const clash =
        campaign === undefined
          ? exclusiveClash(registry, next, undefined, values)
          : exclusiveClash(registry, next, values, global.values);
      if (clash !== undefined) return { ok: false, code: 'mutually_exclusive', ...clash };
      if (diff.length === 0) return { ok: true, snapshot: await snapshotOf(campaignId, global, campaign) };

      const committed = await store.compareAndSet(
        storeKey(campaignId),
        layer.version === 0 ? null : layer.version,
        {
          values,
        },
      );
      if (!committed.ok) continue; // another writer won: redo on the fresh layer
      const written: Layer = { values, version: committed.version };
      const snapshot = await snapshotOf(
        campaignId,
        campaign === undefined ? written : global,
        campaign && written,
      );
      events.emit('changed', { campaignId, changes: diff, version: committed.version, at: clock.now() });
      return { ok: true, snapshot };
    }
    throw new SettingsError('write_conflict', `Other writers kept winning after ${maxAttempts} attempts`, {
      details: { campaignId, attempts: maxAttempts },
    });
  }

  return {
    registry,
    async snapshot(target) {
      const campaignId = toCampaignId(target);
      const [global, campaign] = await read(campaignId);
      return snapshotOf(campaignId, global, campaign);
    },
    set: (target, key, value, writeOptions) => write(target, [[key, value]], true, writeOptions),
    update: (target, values, writeOptions) =>
      write(
        target,
        Object.entries(values).filter(([, value]) => value !== undefined),
        true,
        writeOptions,
      ),
    safeSet: (target, key, value, writeOptions) => write(target, [[key, value]], false, writeOptions),
    reset(target, keys, writeOptions) {
      const all =
        keys ??
        registry.keys.filter((key) => target === GLOBAL || registry.definitions[key]?.scope === 'campaign');
      return write(
        target,
        all.map((key) => [key, RESET] as const),
        true,
        writeOptions,
      );
    },
    on: (event, listener) => events.on(event, listener),
  };
}

/** Marks a key to remove from a layer. */
const RESET: unique symbol = Symbol('reset');

function toCampaignId(target: SettingsTarget): string | null {
  if (target === GLOBAL) return null;
  if (typeof target !== 'string' || target === '') {
    throw new SettingsError('invalid_argument', 'The target must be a non-empty campaign id or GLOBAL', {
      details: { name: 'target' },
    });
  }
  return target;
}
