import { assertTimeoutMs, createEmitter, type Emitter, type JsonValue, systemClock } from '@parley/core';
import { FsmError } from './errors.js';
import type { Flow } from './flow.js';
import { StoredSession } from './stored-session.js';
import type { HandleSettings } from './stored-session-state.js';
import {
  FLOW_SESSION_RECORD_FORMAT,
  type FlowSessionRecord,
  readSessionRecord,
} from './stored-session-record.js';
import type {
  FlowSessionRefusal,
  FlowSessionRefusalCode,
  FlowSessionStore,
  FlowSessionStoreEvents,
  FlowSessionStoreOptions,
} from './stored-session-types.js';

/**
 * The waits between tries of a store write that threw (1 s, 2 s, 4 s: four tries in all).
 *
 * @example
 * ```ts
 * import { DEFAULT_SAVE_RETRY_DELAYS_MS } from '@parley/fsm';
 *
 * console.log(DEFAULT_SAVE_RETRY_DELAYS_MS); // [ 1000, 2000, 4000 ]
 * ```
 */
export const DEFAULT_SAVE_RETRY_DELAYS_MS: readonly number[] = Object.freeze([1_000, 2_000, 4_000]);

/**
 * The waits between attempts of `perform` (1 s, 2 s: three attempts per call).
 *
 * @example
 * ```ts
 * import { DEFAULT_EFFECT_RETRY_DELAYS_MS } from '@parley/fsm';
 *
 * console.log(DEFAULT_EFFECT_RETRY_DELAYS_MS.length + 1); // 3
 * ```
 */
export const DEFAULT_EFFECT_RETRY_DELAYS_MS: readonly number[] = Object.freeze([1_000, 2_000]);

/**
 * The most entries a retry delay list may have: every retry is bounded.
 *
 * @example
 * ```ts
 * import { MAX_RETRY_DELAYS } from '@parley/fsm';
 *
 * console.log(MAX_RETRY_DELAYS); // 10
 * ```
 */
export const MAX_RETRY_DELAYS = 10;

/**
 * Binds a flow's sessions to a Store: each session is one record, written with compare-and-set
 * after every answer, resumable after a restart or on another replica.
 *
 * Use it in a chat-flow host instead of hand-written persistence: `start` a session per
 * conversation, `submit` each answer (slot-filling steps keep a draft of partial answers),
 * `update` the host's own data, `perform` a step's effect with bounded retries on the clock, and
 * `resume` after a restart. A lost race, a corrupt or foreign record, an expired session and a
 * store that keeps failing are refusals as data; nothing is half-written.
 *
 * @throws FsmError `invalid_options` for a retry list longer than {@link MAX_RETRY_DELAYS} or a
 * delay or `idleTimeoutMs` that is not a timeout in ms.
 * @example
 * ```ts
 * import { createManualClock, createMemoryStore } from '@parley/core';
 * import { createFlowSessionStore, defineFlow } from '@parley/fsm';
 * import { z } from 'zod';
 *
 * const flow = defineFlow({
 *   id: 'intake',
 *   version: 1,
 *   steps: [
 *     { name: 'goal', prompt: 'Goal and where?', fields: z.object({ goal: z.string(), where: z.string() }) },
 *     { name: 'notify', prompt: 'Notify how?', fields: z.object({ mode: z.enum(['none', 'email']) }) },
 *   ],
 * });
 * const clock = createManualClock();
 * const store = createMemoryStore({ clock });
 * const sessions = createFlowSessionStore(flow, { store, clock, draftSteps: ['goal'] });
 *
 * const started = await sessions.start('s1', { data: { user: 'ann' } });
 * if (!started.ok) throw new Error(started.reason);
 * await started.session.submit({ goal: 'delete reposts' }); // "where" is missing: kept as a draft
 *
 * // after a restart: the record is read back, the draft still there
 * const resumed = await sessions.resume('s1');
 * if (!resumed.ok) throw new Error(resumed.reason);
 * const answer = await resumed.session.submit({ where: 'x.com' });
 * console.log(answer.ok && answer.result.ok, resumed.session.step); // true notify
 *
 * // the first handle is behind: its write is refused, not applied
 * const lost = await started.session.submit({ mode: 'none' });
 * console.log(lost.ok ? 'written' : lost.code); // conflict
 * ```
 */
export function createFlowSessionStore<TStep extends string, TContext, TData = JsonValue>(
  flow: Flow<TStep, TContext>,
  options: FlowSessionStoreOptions<TStep>,
): FlowSessionStore<TStep, TContext, TData> {
  const clock = options.clock ?? systemClock;
  const prefix = options.keyPrefix ?? 'flow-session:';
  // checked once, up front, and shared by every handle
  const settings: HandleSettings<TStep> = {
    store: options.store,
    clock,
    draftSteps: options.draftSteps ?? [],
    saveDelays: delays(options.saveRetryDelaysMs ?? DEFAULT_SAVE_RETRY_DELAYS_MS, 'saveRetryDelaysMs'),
    effectDelays: delays(
      options.effectRetryDelaysMs ?? DEFAULT_EFFECT_RETRY_DELAYS_MS,
      'effectRetryDelaysMs',
    ),
    idleTimeoutMs:
      options.idleTimeoutMs === undefined ? undefined : timeout(options.idleTimeoutMs, 'idleTimeoutMs'),
    historyLimit: options.historyLimit,
    wait: options.wait,
  };
  let events: Emitter<FlowSessionStoreEvents> | undefined;

  const refuse = (
    id: string,
    code: FlowSessionRefusalCode,
    reason: string,
    extra: object = {},
  ): FlowSessionRefusal => {
    events?.emit('refused', { id, key: prefix + id, code, reason, at: clock.now() });
    return { ok: false, code, reason, ...extra };
  };

  return {
    keyOf: (id) => prefix + id,
    async start(id, startOptions) {
      const at = clock.now();
      const snapshot = flow.start({
        at,
        ...(startOptions.context === undefined ? {} : { context: startOptions.context }),
      });
      const record: FlowSessionRecord<TStep, TContext, TData> = {
        kind: 'parley.flow-session',
        format: FLOW_SESSION_RECORD_FORMAT,
        id,
        flow: snapshot,
        draft: null,
        data: startOptions.data,
        retry: null,
        expiresAt: options.idleTimeoutMs === undefined ? null : at + options.idleTimeoutMs,
        savedAt: at,
      };
      try {
        // plain JSON by construction
        const result = await options.store.compareAndSet(prefix + id, null, record as unknown as JsonValue);
        if (!result.ok)
          return refuse(id, 'exists', `a session ${id} is already stored`, { version: result.version });
        return { ok: true, session: new StoredSession(flow, settings, prefix + id, record, result.version) };
      } catch (error) {
        return refuse(id, 'store_failed', `the store failed: ${message(error)}`, {
          attempts: 1,
          cause: error,
        });
      }
    },
    async resume(id) {
      let entry: Awaited<ReturnType<typeof options.store.getEntry>>;
      try {
        entry = await options.store.getEntry(prefix + id);
      } catch (error) {
        return refuse(id, 'store_failed', `the store failed: ${message(error)}`, {
          attempts: 1,
          cause: error,
        });
      }
      if (entry === undefined) return refuse(id, 'not_found', `no session ${id} is stored`);
      const read = readSessionRecord<TStep, TContext, TData>(flow, id, entry.value, options.dataSchema);
      if (!('ok' in read)) return refuse(id, read.code, `session ${id}: ${read.reason}`);
      const { record } = read;
      if (record.expiresAt !== null && clock.now() >= record.expiresAt) {
        return refuse(id, 'expired', `session ${id} expired at ${new Date(record.expiresAt).toISOString()}`);
      }
      return { ok: true, session: new StoredSession(flow, settings, prefix + id, record, entry.version) };
    },
    on(event, listener) {
      events ??= createEmitter();
      return events.on(event, listener);
    },
  };
}

function delays(list: readonly number[], name: string): readonly number[] {
  if (list.length > MAX_RETRY_DELAYS) {
    throw new FsmError('invalid_options', `${name} has ${list.length} delays; at most ${MAX_RETRY_DELAYS}`, {
      details: { option: name, limit: MAX_RETRY_DELAYS },
    });
  }
  return list.map((ms, i) => timeout(ms, `${name}[${i}]`));
}

function timeout(ms: number, name: string): number {
  try {
    return assertTimeoutMs(ms, name);
  } catch (error) {
    throw new FsmError('invalid_options', message(error), { details: { option: name }, cause: error });
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
