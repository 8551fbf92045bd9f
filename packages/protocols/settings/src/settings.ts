import {
  createEmitter,
  createKernel,
  createMemoryStore,
  createOwnerId,
  isParleyError,
  type Kernel,
  type KernelRefusal,
  systemClock,
} from '@parley/core';
import type { SettingsRegistry } from './registry-types.js';
import { SettingsError } from './errors.js';
import type { SettingsEvents, SettingsResult, SettingsWriteOptions } from './results.js';
import { LAYER_RECORD, type LayerOutcome, writeStep } from './internal/layer-record.js';
import { type Change, checkChanges, outcomeRefusal, RESET } from './internal/changes.js';
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
  const maxAttempts = checkMaxAttempts(options.maxWriteAttempts ?? 8);
  const events = createEmitter<SettingsEvents>(
    options.onListenerError === undefined ? {} : { onListenerError: options.onListenerError },
  );
  type Snapshot = SettingsSnapshot<TRegistry>;

  const storeKey = (campaignId: string | null): string =>
    campaignId === null ? `${prefix}global` : `${prefix}campaign:${campaignId}`;
  const kernel = createKernel({ store, clock, owner: createOwnerId('settings') });
  const step = writeStep(registry);

  async function read(campaignId: string | null): Promise<[Layer, Layer | undefined]> {
    const global = await readLayer(kernel, storeKey(null));
    return [global, campaignId === null ? undefined : await readLayer(kernel, storeKey(campaignId))];
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
    changes: readonly Change[],
    trusted: boolean,
    options: SettingsWriteOptions = {},
  ): Promise<SettingsResult<TRegistry>> {
    const campaignId = toCampaignId(target);
    const next = await checkChanges(registry, campaignId, changes, trusted);
    if (!(next instanceof Map)) return next;
    const key = storeKey(campaignId);
    const global = campaignId === null ? undefined : await readLayer(kernel, storeKey(null));
    const event = { next, expectedVersion: options.expectedVersion, global: global?.values };
    const done = await kernel.apply(key, LAYER_RECORD, step, event, { maxAttempts });
    if (!done.ok) throw failed(done, campaignId, maxAttempts);
    const outcome = done.effects[0] as LayerOutcome; // the step always answers with one outcome
    const layer: Layer = {
      values: done.committed?.value.values ?? {},
      version: done.committed?.value.rev ?? 0,
    };
    const refused = outcomeRefusal(outcome, options.expectedVersion);
    if (refused !== undefined) return refused;
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

/** The committed layer of `key` (a layer stored before the kernel read as it is). */
async function readLayer(kernel: Kernel, key: string): Promise<Layer> {
  try {
    const found = await kernel.read(key, LAYER_RECORD);
    return { values: found?.value.values ?? {}, version: found?.value.rev ?? 0 };
  } catch (error) {
    throw failed(error);
  }
}

/** Checks `maxWriteAttempts`: an integer of at least 1. */
function checkMaxAttempts(maxAttempts: number): number {
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new SettingsError(
      'invalid_argument',
      `maxWriteAttempts must be an integer >= 1, got ${maxAttempts}`,
      {
        details: { name: 'maxWriteAttempts', value: maxAttempts },
      },
    );
  }
  return maxAttempts;
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
