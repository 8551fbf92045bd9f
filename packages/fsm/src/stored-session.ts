import {
  type Clock,
  createEmitter,
  type Emitter,
  type JsonValue,
  type Store,
  type TimerHandle,
} from '@parley/core';
import type { Flow } from './flow.js';
import type { FlowSnapshot } from './flow-types.js';
import { isRecord } from './snapshot.js';
import type { FlowDraft, FlowRetry, FlowSessionRecord } from './stored-session-record.js';
import type {
  FlowEffectResult,
  FlowSaveResult,
  FlowSessionRefusal,
  FlowSessionRefusalCode,
  StoredFlowSession,
  StoredFlowSessionEvents,
  StoredSubmitResult,
} from './stored-session-types.js';

type Fields = { readonly [field: string]: JsonValue };

/** @internal What a handle needs from its store. */
export interface HandleSettings<TStep extends string> {
  readonly store: Store;
  readonly clock: Clock;
  readonly key: string;
  readonly draftSteps: readonly TStep[];
  readonly saveDelays: readonly number[];
  readonly effectDelays: readonly number[];
  readonly idleTimeoutMs: number | undefined;
  readonly historyLimit: number | undefined;
  readonly wait: ((ms: number) => Promise<void>) | undefined;
}

/**
 * @internal The handle of a record already written (by `start`) or read (by `resume`) at `version`.
 * State moves only when a write succeeds: a refused write leaves the handle as it was.
 */
export function bindSession<TStep extends string, TContext, TData>(
  flow: Flow<TStep, TContext>,
  settings: HandleSettings<TStep>,
  initial: FlowSessionRecord<TStep, TContext, TData>,
  initialVersion: number,
): StoredFlowSession<TStep, TContext, TData> {
  const { store, clock, key } = settings;
  let record = initial;
  let version = initialVersion;
  let stale = false;
  let closed = false;
  let chain: Promise<unknown> = Promise.resolve();
  const waits = new Set<{ timer: TimerHandle; wake: (woke: boolean) => void }>();
  let events: Emitter<StoredFlowSessionEvents<TStep, TContext>> | undefined;
  const id = record.id;

  const refuse = (code: FlowSessionRefusalCode, reason: string, extra: object = {}): FlowSessionRefusal => {
    events?.emit('refused', { id, code, reason, at: clock.now() });
    return { ok: false, code, reason, ...extra };
  };

  /** Sleeps on the clock; false when the handle was closed meanwhile. */
  function sleep(ms: number): Promise<boolean> {
    if (closed) return Promise.resolve(false);
    const wait = settings.wait;
    if (wait !== undefined) return wait(Math.max(0, ms)).then(() => !closed);
    return new Promise((resolve) => {
      const entry = {
        wake: (woke: boolean) => {
          waits.delete(entry);
          resolve(woke);
        },
        timer: clock.setTimeout(() => entry.wake(true), Math.max(0, ms)),
      };
      waits.add(entry);
    });
  }

  /** Runs one write at a time, in call order. */
  function exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = chain.then(task);
    chain = run.catch(() => undefined);
    return run;
  }

  function gate(): FlowSessionRefusal | undefined {
    if (closed) return refuse('closed', `session ${id} is closed`);
    if (stale) return refuse('stale', `session ${id} lost a race to another writer: resume it again`);
    if (record.expiresAt !== null && clock.now() >= record.expiresAt) {
      return refuse('expired', `session ${id} expired at ${new Date(record.expiresAt).toISOString()}`);
    }
    return undefined;
  }

  /** Writes `next` with compare-and-set, retrying a throwing store on the clock. */
  async function write(
    next: Omit<FlowSessionRecord<TStep, TContext, TData>, 'savedAt' | 'expiresAt'>,
  ): Promise<FlowSaveResult> {
    for (let attempt = 1; ; attempt++) {
      const at = clock.now();
      const full = {
        ...next,
        savedAt: at,
        expiresAt: settings.idleTimeoutMs === undefined ? null : at + settings.idleTimeoutMs,
      };
      try {
        // a record is plain JSON by construction: a flow snapshot, JSON fields and JSON data
        const result = await store.compareAndSet(key, version, full as unknown as JsonValue);
        if (!result.ok) {
          stale = true;
          const why = `the record of session ${id} is at version ${String(result.version)}, not ${version}`;
          return refuse('conflict', why, { version: result.version });
        }
        record = full;
        version = result.version;
        events?.emit('saved', { id, version, at });
        return { ok: true, version };
      } catch (error) {
        const delay = settings.saveDelays[attempt - 1];
        const reason = error instanceof Error ? error.message : String(error);
        events?.emit('save-failed', { id, attempt, reason, willRetry: delay !== undefined, at });
        if (delay === undefined) {
          return refuse('store_failed', `the store failed ${attempt} time(s): ${reason}`, {
            attempts: attempt,
            cause: error,
          });
        }
        if (!(await sleep(delay))) return refuse('closed', `session ${id} was closed while saving`);
      }
    }
  }

  function draftOf(): FlowDraft<TStep> | null {
    const draft = record.draft;
    return draft !== null && draft.step === record.flow.state && draft.part === record.flow.part
      ? draft
      : null;
  }

  function merged(fields: Fields): Fields {
    const out: Record<string, JsonValue> = { ...draftOf()?.fields };
    for (const [name, value] of Object.entries(fields)) {
      const before = out[name];
      out[name] = Array.isArray(before) && Array.isArray(value) ? [...new Set([...before, ...value])] : value;
    }
    return out;
  }

  function submitNow(
    fields: unknown,
    options: { readonly data?: TData; readonly transient?: Fields },
    retryAfterMs?: number | null,
  ): Promise<StoredSubmitResult<TStep, TContext>> {
    return exclusive(async () => {
      const refused = gate();
      if (refused !== undefined) return refused;
      const before = record.flow;
      const answer = isRecord(fields) ? merged(fields as Fields) : fields;
      const submission = isRecord(answer) ? { ...answer, ...options.transient } : answer;
      const at = clock.now();
      const result = flow.submit(before, submission, {
        at,
        ...(settings.historyLimit === undefined ? {} : { historyLimit: settings.historyLimit }),
      });
      const after = result.snapshot;
      const stayed = after.state === before.state && after.part === before.part;
      const keep =
        stayed && !result.ok && isRecord(answer) && settings.draftSteps.includes(before.state as TStep);
      const draft: FlowDraft<TStep> | null = keep
        ? { step: before.state as TStep, part: before.part, fields: answer as Fields }
        : null;
      // undefined keeps a stored retry of this step, null clears it, a delay schedules the next
      let retry: FlowRetry<TStep> | null = stayed && retryAfterMs !== null ? record.retry : null;
      const schedule =
        typeof retryAfterMs === 'number' && stayed && !result.ok && result.code !== 'flow_done';
      if (schedule) {
        retry = {
          step: before.state as TStep,
          attempts: (retry?.attempts ?? 0) + 1,
          dueAt: at + retryAfterMs,
        };
      }
      const saved = await write({
        ...record,
        flow: after,
        draft,
        retry,
        data: options.data === undefined ? record.data : options.data,
      });
      if (!saved.ok) return saved;
      events?.emit('submitted', { id, version: saved.version, result });
      if (schedule && retry !== null) {
        events?.emit('retry-scheduled', {
          id,
          step: retry.step,
          attempts: retry.attempts,
          dueAt: retry.dueAt,
        });
      }
      return { ok: true, version: saved.version, result };
    });
  }

  async function perform(
    effect: (attempt: number) => unknown | Promise<unknown>,
  ): Promise<FlowEffectResult<TStep, TContext>> {
    const step = record.flow.state;
    const stored = record.retry;
    const base = stored?.step === step ? stored.attempts : 0;
    if (stored !== null && stored.step === step && stored.dueAt > clock.now()) {
      // the stored absolute due time wins over whatever waited before a restart
      if (!(await sleep(stored.dueAt - clock.now()))) return refuse('closed', `session ${id} was closed`);
    }
    for (let n = 1; ; n++) {
      const refused = gate();
      if (refused !== undefined) return refused;
      const fields = await effect(base + n);
      const delay = settings.effectDelays[n - 1];
      const submitted = await submitNow(fields, {}, delay ?? null);
      if (!submitted.ok) return submitted;
      const { result } = submitted;
      const attempts = base + n;
      if (result.ok) return { ok: true, attempts, result };
      const reason = result.code === 'flow_done' ? result.reason : result.message;
      const waiting = record.retry;
      if (waiting === null) return { ok: false, code: 'retries_exhausted', attempts, reason, result };
      if (!(await sleep(waiting.dueAt - clock.now()))) return refuse('closed', `session ${id} was closed`);
    }
  }

  return {
    id,
    key,
    get version() {
      return version;
    },
    get step() {
      return record.flow.state;
    },
    get status() {
      return record.flow.status;
    },
    get done() {
      return record.flow.done;
    },
    get prompt() {
      return flow.prompt(record.flow);
    },
    get fields() {
      return record.flow.fields;
    },
    get mark() {
      return record.flow.mark;
    },
    get draft() {
      return draftOf();
    },
    get retry() {
      return record.retry;
    },
    get data() {
      return record.data;
    },
    get expiresAt() {
      return record.expiresAt;
    },
    get stale() {
      return stale;
    },
    snapshot: (): FlowSnapshot<TStep, TContext> => record.flow,
    record: () => record,
    merged,
    submit: (fields, options = {}) => submitNow(fields, options),
    update: (data) => exclusive(async () => gate() ?? write({ ...record, data })),
    perform,
    on(event, listener) {
      events ??= createEmitter();
      return events.on(event, listener);
    },
    close() {
      closed = true;
      for (const wait of [...waits]) {
        clock.clearTimeout(wait.timer);
        wait.wake(false);
      }
    },
  };
}
