import {
  createEmitter,
  createKernel,
  createMemoryStore,
  createOwnerId,
  isParleyError,
  type JsonValue,
  type KernelRefusal,
  systemClock,
  validateAsync,
} from '@parley/core';
import type { SettingsRegistry } from './registry-types.js';
import { SettingsError } from './errors.js';
import type { SettingsEvents, SettingsResult, SettingsWriteOptions } from './results.js';
import { LAYER_RECORD, type LayerOutcome, writeStep } from './internal/layer-record.js';
import { toJson } from './internal/layers.js';
import type { Settings, SettingsOptions } from './settings-types.js';
import { buildSnapshot, type Layer, type SettingsSnapshot } from './snapshot.js';
import { GLOBAL, type SettingsTarget } from './target.js';
/**
 * Creates the settings service of a registry over a core `Store`.
 *
 * Use one per process (or replica) and call `snapshot(campaignId)` at the start of every turn: a
 * change made mid-session shows in the next snapshot, never in one already taken. Values resolve
 * campaign → global → default. Each layer is a durable-kernel record (kind `parley.settings.layer`);
 * each write is a pure step on the committed layer — the version check, the changes and the
 * registry's relations — committed with one compare-and-set and re-run on the fresh layer when
 * another writer got there first. A layer written by an earlier version (`{ values }`) is read, and
 * migrated to the kernel record by the next write; any other stored shape is refused.
 *
 * @throws SettingsError `invalid_argument` when `maxWriteAttempts` is not a positive integer; reads
 * and writes reject with `corrupt_record` or `record_version` for a layer they cannot read (never
 * overwritten), `store_failed` when the store throws, `write_conflict` after `maxWriteAttempts` lost races.
 * @example
 * ```ts
 * import { createManualClock, createMemoryStore } from '@parley/core';
 * import { createSettings, defineSetting, defineSettings } from '@parley/settings';
 * import { z } from 'zod';
 *
 * const registry = defineSettings(
 *   [
 *     defineSetting({ key: 'context.full_context_enabled', schema: z.boolean(), default: false }),
 *     defineSetting({ key: 'context.compress_enabled', schema: z.boolean(), default: true }),
 *   ],
 *   { relations: [{ kind: 'precedence', winner: 'context.full_context_enabled', over: 'context.compress_enabled' }] },
 * );
 * const clock = createManualClock();
 * const settings = createSettings(registry, { store: createMemoryStore({ clock }), clock });
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
  const kernel = createKernel({ store, clock, owner: createOwnerId('settings') });
  const step = writeStep(registry);

  /** The committed layer of `key` (a layer stored before the kernel read as it is). */
  async function layerOf(key: string): Promise<Layer> {
    try {
      const found = await kernel.read(key, LAYER_RECORD);
      return { values: found?.value.values ?? {}, version: found?.value.rev ?? 0 };
    } catch (error) {
      throw failed(error);
    }
  }

  async function read(campaignId: string | null): Promise<[Layer, Layer | undefined]> {
    const global = await layerOf(storeKey(null));
    return [global, campaignId === null ? undefined : await layerOf(storeKey(campaignId))];
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
        return { ok: false, code: 'unknown_key', message: `Unknown setting "${key}"`, key };
      }
      const definition = registry.definitions[key] as TRegistry['definitions'][string]; // has(key) checked
      if (campaignId !== null && definition.scope === 'global') {
        const message = `The setting "${key}" is global; a campaign cannot set it`;
        return { ok: false, code: 'scope_mismatch', message, key, scope: 'global' };
      }
      if (value === RESET) {
        next.set(key, undefined);
        continue;
      }
      const checked = await validateAsync(definition.schema, value);
      const json = checked.ok ? toJson(checked.value) : undefined;
      if (json === undefined) {
        const issues = checked.ok ? [{ path: [], pathText: '', message: 'Not JSON' }] : checked.issues;
        const message = `The value of "${key}" is refused: ${issues.map((issue) => issue.message).join('; ')}`;
        return { ok: false, code: 'invalid_value', message, key, issues };
      }
      next.set(key, json);
    }

    const key = storeKey(campaignId);
    const global = campaignId === null ? undefined : await layerOf(storeKey(null));
    const event = { next, expectedVersion: options.expectedVersion, global: global?.values };
    const done = await kernel.apply(key, LAYER_RECORD, step, event, { maxAttempts });
    if (!done.ok) throw failed(done, campaignId, maxAttempts);
    const outcome = done.effects[0] as LayerOutcome; // the step always answers with one outcome
    const layer: Layer = {
      values: done.committed?.value.values ?? {},
      version: done.committed?.value.rev ?? 0,
    };
    if (outcome.kind === 'version_mismatch') {
      const expectedVersion = options.expectedVersion as number; // checked by the step
      const message = `The settings are at version ${outcome.version}, not ${expectedVersion}`;
      return { ok: false, code: 'version_mismatch', message, expectedVersion, version: outcome.version };
    }
    if (outcome.kind === 'mutually_exclusive') {
      return {
        ok: false,
        code: 'mutually_exclusive',
        message: `"${outcome.key}" cannot be on while "${outcome.conflictsWith}" is on`,
        key: outcome.key,
        conflictsWith: outcome.conflictsWith,
      };
    }
    const snapshot = await snapshotOf(campaignId, global ?? layer, global === undefined ? undefined : layer);
    if (outcome.kind === 'changed') {
      events.emit('changed', {
        campaignId,
        changes: outcome.changes,
        version: layer.version,
        at: clock.now(),
      });
    }
    return { ok: true, snapshot };
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

/** The SettingsError of a kernel refusal or of a KernelError thrown by a read. */
function failed(problem: unknown, campaignId?: string | null, attempts?: number): SettingsError {
  const refusal = problem as Partial<KernelRefusal>;
  const code = isParleyError(problem) ? problem.code : refusal.code;
  if (code === 'write_conflict' || code === 'lease_held' || code === 'lease_lost') {
    return new SettingsError('write_conflict', `Other writers kept winning after ${attempts} attempts`, {
      details: { campaignId, attempts },
    });
  }
  const known = code === 'corrupt_record' || code === 'record_version' || code === 'too_large';
  const message = problem instanceof Error ? problem.message : String(refusal.message);
  const cause = problem instanceof Error ? (problem.cause ?? problem) : refusal.cause; // the store's own error
  return new SettingsError(known ? code : 'store_failed', message, {
    ...(cause === undefined ? {} : { cause }),
    details: { code },
  });
}

function toCampaignId(target: SettingsTarget): string | null {
  if (target === GLOBAL) return null;
  if (typeof target !== 'string' || target === '') {
    throw new SettingsError('invalid_argument', 'The target must be a non-empty campaign id or GLOBAL', {
      details: { name: 'target' },
    });
  }
  return target;
}
