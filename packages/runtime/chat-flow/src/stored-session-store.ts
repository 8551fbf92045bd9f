import {
  assertTimeoutMs,
  type Clock,
  type Committed,
  KernelError,
  createEmitter,
  createKernel,
  createOwnerId,
  type Emitter,
  type JsonValue,
  type Kernel,
  type KernelRefusal,
  type RecordCodec,
  type Store,
  systemClock,
} from '@parley/core';
import { ChatFlowError } from './errors.js';
import type { Flow } from '@parley/fsm';
import { StoredSession } from './stored-session.js';
import type { HandleSettings } from './stored-session-state.js';
import { check, createStep, type SessionSlot, sessionCodec, sessionCodeOf } from './stored-session-steps.js';
import { isRecord } from './internal/record.js';
import { formerSession, readSession } from './stored-session-read.js';
import type { FlowSessionRefusal, FlowSessionRefusalCode } from './stored-session-refusals.js';
import type {
  FlowSessionStore,
  FlowSessionStoreEvents,
  FlowSessionStoreOptions,
} from './stored-session-types.js';

/**
 * The waits between tries of a store write that threw (1 s, 2 s, 4 s: four tries in all).
 *
 * @example
 * ```ts
 * import { DEFAULT_SAVE_RETRY_DELAYS_MS } from '@parley/chat-flow';
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
 * import { DEFAULT_EFFECT_RETRY_DELAYS_MS } from '@parley/chat-flow';
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
 * import { MAX_RETRY_DELAYS } from '@parley/chat-flow';
 *
 * console.log(MAX_RETRY_DELAYS); // 10
 * ```
 */
export const MAX_RETRY_DELAYS = 10;

/**
 * Binds a flow's sessions to a Store: each session is one durable-kernel record (kind
 * `parley.fsm.session`), changed by a step decided on the committed record and written with one
 * compare-and-set after every answer, resumable after a restart or on another replica.
 *
 * Use it in a chat-flow host instead of hand-written persistence: `start` a session per
 * conversation, `submit` each answer (slot-filling steps keep a draft of partial answers),
 * `update` the host's own data, `perform` a step's effect with bounded retries on the clock, and
 * `resume` after a restart; `acquire` a session's lease for a turn that must not interleave with
 * another replica's. A lost race, a corrupt or foreign record (a record of format 1, written before
 * the durable kernel, is refused `foreign_version` and never overwritten), an expired session, a
 * lease held elsewhere and a store that keeps failing are refusals as data; nothing is half-written.
 *
 * @throws ChatFlowError `invalid_argument` for a retry list longer than {@link MAX_RETRY_DELAYS} or a
 * delay or `idleTimeoutMs` that is not a timeout in ms.
 * @example
 * ```ts
 * import { createManualClock, createMemoryStore } from '@parley/core';
 * import { defineFlow } from '@parley/fsm';
 * import { createFlowSessionStore } from '@parley/chat-flow';
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
 * if (!started.ok) throw new Error(started.message);
 * await started.session.submit({ goal: 'delete reposts' }); // "where" is missing: kept as a draft
 *
 * // after a restart: the record is read back, the draft still there
 * const resumed = await sessions.resume('s1');
 * if (!resumed.ok) throw new Error(resumed.message);
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
  const { store } = options;
  const owner = options.owner ?? createOwnerId('fsm-sessions');
  const kernel = createKernel({ store, clock, owner });
  const codec = sessionCodec<TStep, TContext, TData>(flow, options.dataSchema);
  // a former record (rare: read once, then written back as the current format) by its format's rules
  const codecs = {
    codec,
    former: (format: number) => sessionCodec<TStep, TContext, TData>(flow, options.dataSchema, format),
  };
  const settings = handleSettings<TStep, TContext, TData>(options, kernel, codec, clock);
  const create = createStep<TStep, TContext, TData>(flow, settings.idleTimeoutMs);
  let events: Emitter<FlowSessionStoreEvents> | undefined;

  const refuse = (
    id: string,
    code: FlowSessionRefusalCode,
    message: string,
    extra: object = {},
  ): FlowSessionRefusal => {
    events?.emit('refused', { id, key: prefix + id, code, message, reason: message, at: clock.now() });
    return { ok: false, code, message, reason: message, ...extra };
  };

  /** A kernel refusal of session `id`; a record of format 1 (before the kernel) is `foreign_version`. */
  async function refuseKernel(id: string, refused: KernelRefusal): Promise<FlowSessionRefusal> {
    if (refused.code === 'store_failed') {
      const cause =
        refused.cause ?? new KernelError('store_failed', refused.message, { details: { key: refused.key } });
      return refuse(id, 'store_failed', `the store failed: ${refused.message}`, { attempts: 1, cause });
    }
    if (refused.code === 'corrupt_record' && (await legacy(store, prefix + id))) {
      const why = `session ${id} was stored by an earlier @parley/fsm (format 1, before the durable kernel)`;
      return refuse(id, 'foreign_version', `${why}: finish it there or delete it; it is never overwritten`);
    }
    return refuse(id, sessionCodeOf(refused.code), refused.message);
  }

  /** A start refused `record_version`: a session of format 4, 3 or 2 stored there exists; anything else is the kernel's. */
  async function refuseFormer(id: string, key: string, done: KernelRefusal): Promise<FlowSessionRefusal> {
    const former = await formerSession(store, key, codecs.former, done);
    if (!('storeVersion' in former)) return refuseKernel(id, former);
    return refuse(id, 'exists', `a session ${id} is already stored`, { version: former.storeVersion });
  }

  const handle = (key: string, committed: Committed<SessionSlot<TStep, TContext, TData>>, text?: string) => {
    // only readable slots reach here (checked by the caller)
    const { record, rev } = committed.value as Extract<
      SessionSlot<TStep, TContext, TData>,
      { record: unknown }
    >;
    const session = new StoredSession(flow, settings, key, record, committed.storeVersion, rev);
    session.hold(committed, text); // its first turn takes the lease on this record, without a read
    return session;
  };

  return {
    keyOf: (id) => prefix + id,
    start(id, options) {
      // basis null: no read first; the record lands only where none is stored (else read and refused)
      const key = prefix + id;
      // the options are read by the step, inside the kernel's promise: a call without them rejects
      const created = kernel.apply(key, codec, create, { id, options }, { basis: null });
      return created.then((done) => {
        if (!done.ok && done.code === 'record_version') return refuseFormer(id, key, done);
        if (!done.ok) return refuseKernel(id, done);
        const verdict = done.effects[0];
        if (verdict === undefined || !verdict.ok || done.committed === undefined) {
          const version = done.committed?.storeVersion ?? null;
          return refuse(id, 'exists', `a session ${id} is already stored`, { version });
        }
        return { ok: true, session: handle(key, done.committed, done.text) };
      });
    },
    async resume(id) {
      const key = prefix + id;
      const found = await readSession(kernel, store, key, codecs, () => clock.now()); // formats 4, 3 and 2 too
      if (found !== undefined && 'ok' in found) return refuseKernel(id, found);
      const checked = check(found?.value, id, clock.now());
      if (!checked.ok || found === undefined) {
        const code = checked.ok ? 'not_found' : checked.code;
        return refuse(id, code, checked.ok ? `no session ${id} is stored` : checked.reason);
      }
      return { ok: true, session: handle(key, found) };
    },
    on(event, listener) {
      events ??= createEmitter();
      return events.on(event, listener);
    },
  };
}

/** The settings every handle of a store shares: the options checked once, up front. */
function handleSettings<TStep extends string, TContext, TData>(
  options: FlowSessionStoreOptions<TStep>,
  kernel: Kernel,
  codec: RecordCodec<SessionSlot<TStep, TContext, TData>>,
  clock: Clock,
): HandleSettings<TStep, TContext, TData> {
  return {
    kernel,
    codec,
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
}

/** Whether `key` holds a session record of format 1, written before the durable kernel. */
async function legacy(store: Store, key: string): Promise<boolean> {
  try {
    const value = await store.get(key);
    return isRecord(value) && value.kind === 'parley.flow-session' && value.format === 1;
  } catch {
    return false; // it stays refused as corrupt; the next read reports a failing store
  }
}

function delays(list: readonly number[], name: string): readonly number[] {
  if (list.length > MAX_RETRY_DELAYS) {
    throw new ChatFlowError(
      'invalid_argument',
      `${name} has ${list.length} delays; at most ${MAX_RETRY_DELAYS}`,
      {
        details: { option: name, limit: MAX_RETRY_DELAYS },
      },
    );
  }
  return list.map((ms, i) => timeout(ms, `${name}[${i}]`));
}

function timeout(ms: number, name: string): number {
  try {
    return assertTimeoutMs(ms, name);
  } catch (error) {
    throw new ChatFlowError('invalid_argument', message(error), { details: { option: name }, cause: error });
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
