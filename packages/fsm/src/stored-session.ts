import type { JsonValue } from '@parley/core';
import type { FlowSubmitResult } from './flow-types.js';
import { isRecord } from './snapshot.js';
import type { FlowDraft, FlowRetry, FlowSessionRecord } from './stored-session-record.js';
import { SessionState } from './stored-session-state.js';
import type {
  FlowEffectResult,
  FlowSaveResult,
  StoredFlowSession,
  StoredSubmitResult,
} from './stored-session-types.js';

type Fields = { readonly [field: string]: JsonValue };
type SubmitOptions<TStep extends string, TContext, TData> = {
  readonly data?: TData | ((result: FlowSubmitResult<TStep, TContext>) => TData);
  readonly transient?: Fields;
};
type SessionRecord<TStep extends string, TContext, TData> = FlowSessionRecord<TStep, TContext, TData>;
const DONE: Promise<unknown> = Promise.resolve();
const ignore = (): undefined => undefined;

/**
 * @internal The handle of a record already written (by `start`) or read (by `resume`) at `version`.
 * State moves only when a write succeeds: a refused write leaves the handle as it was. A class, not
 * closures: a handle is made per `start` and `resume`, so it must be cheap to create.
 */
export class StoredSession<TStep extends string, TContext, TData>
  extends SessionState<TStep, TContext, TData>
  implements StoredFlowSession<TStep, TContext, TData>
{
  /** The last write: writes run one at a time, in call order. */
  private chain: Promise<unknown> = DONE;

  submit(
    fields: unknown,
    options: SubmitOptions<TStep, TContext, TData> = {},
  ): Promise<StoredSubmitResult<TStep, TContext>> {
    return this.submitNow(fields, options);
  }

  update(data: TData): Promise<FlowSaveResult> {
    return this.exclusive(async () => this.gate() ?? this.write({ ...this.rec, data }));
  }

  async perform(
    effect: (attempt: number) => unknown | Promise<unknown>,
  ): Promise<FlowEffectResult<TStep, TContext>> {
    const { clock, effectDelays } = this.settings;
    const step = this.rec.flow.state;
    const stored = this.rec.retry;
    const base = stored?.step === step ? stored.attempts : 0;
    if (stored !== null && stored.step === step && stored.dueAt > clock.now()) {
      // the stored absolute due time wins over whatever waited before a restart
      if (!(await this.sleep(stored.dueAt - clock.now())))
        return this.refuse('closed', `session ${this.id} was closed`);
    }
    for (let n = 1; ; n++) {
      const refused = this.gate();
      if (refused !== undefined) return refused;
      const fields = await effect(base + n);
      const delay = effectDelays[n - 1];
      const submitted = await this.submitNow(fields, {}, delay ?? null);
      if (!submitted.ok) return submitted;
      const { result } = submitted;
      const attempts = base + n;
      if (result.ok) return { ok: true, attempts, result };
      const reason = result.code === 'flow_done' ? result.reason : result.message;
      const waiting = this.rec.retry;
      if (waiting === null) return { ok: false, code: 'retries_exhausted', attempts, reason, result };
      if (!(await this.sleep(waiting.dueAt - clock.now())))
        return this.refuse('closed', `session ${this.id} was closed`);
    }
  }

  /** Runs one write at a time, in call order. */
  private exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.chain.then(task);
    this.chain = run.catch(ignore);
    return run;
  }

  /** Writes `next` with compare-and-set, retrying a throwing store on the clock. */
  protected async write(next: SessionRecord<TStep, TContext, TData>): Promise<FlowSaveResult> {
    const { store, clock, idleTimeoutMs, saveDelays } = this.settings;
    const id = this.id;
    for (let attempt = 1; ; attempt++) {
      const at = clock.now();
      const full: SessionRecord<TStep, TContext, TData> = {
        kind: next.kind,
        format: next.format,
        id: next.id,
        flow: next.flow,
        draft: next.draft,
        data: next.data,
        retry: next.retry,
        expiresAt: idleTimeoutMs === undefined ? null : at + idleTimeoutMs,
        savedAt: at,
      };
      try {
        // a record is plain JSON by construction: a flow snapshot, JSON fields and JSON data
        const result = await store.compareAndSet(this.key, this.ver, full as unknown as JsonValue);
        if (!result.ok) {
          this.lost = true;
          const why = `the record of session ${id} is at version ${String(result.version)}, not ${this.ver}`;
          return this.refuse('conflict', why, { version: result.version });
        }
        this.rec = full;
        this.ver = result.version;
        this.events?.emit('saved', { id, version: this.ver, at });
        return { ok: true, version: this.ver };
      } catch (error) {
        const delay = saveDelays[attempt - 1];
        const reason = error instanceof Error ? error.message : String(error);
        this.events?.emit('save-failed', { id, attempt, reason, willRetry: delay !== undefined, at });
        if (delay === undefined) {
          return this.refuse('store_failed', `the store failed ${attempt} time(s): ${reason}`, {
            attempts: attempt,
            cause: error,
          });
        }
        if (!(await this.sleep(delay))) return this.refuse('closed', `session ${id} was closed while saving`);
      }
    }
  }

  private submitNow(
    fields: unknown,
    options: SubmitOptions<TStep, TContext, TData>,
    retryAfterMs?: number | null,
  ): Promise<StoredSubmitResult<TStep, TContext>> {
    return this.exclusive(async () => {
      const refused = this.gate();
      if (refused !== undefined) return refused;
      const { clock, draftSteps, historyLimit } = this.settings;
      const record = this.rec;
      const before = record.flow;
      const answer = isRecord(fields) ? this.merged(fields as Fields) : fields;
      const submission =
        isRecord(answer) && options.transient !== undefined ? { ...answer, ...options.transient } : answer;
      const at = clock.now();
      const result = this.flow.submit(
        before,
        submission,
        historyLimit === undefined ? { at } : { at, historyLimit },
      );
      const after = result.snapshot;
      const stayed = after.state === before.state && after.part === before.part;
      const keep = stayed && !result.ok && isRecord(answer) && draftSteps.includes(before.state as TStep);
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
      const given = options.data;
      // host data is plain JSON, never a function: a function is the verdict-dependent form
      const data =
        given === undefined
          ? record.data
          : typeof given === 'function'
            ? (given as (verdict: FlowSubmitResult<TStep, TContext>) => TData)(result)
            : given;
      const saved = await this.write({ ...record, flow: after, draft, retry, data });
      if (!saved.ok) return saved;
      const id = this.id;
      this.events?.emit('submitted', { id, version: saved.version, result });
      if (schedule && retry !== null) {
        this.events?.emit('retry-scheduled', {
          id,
          step: retry.step,
          attempts: retry.attempts,
          dueAt: retry.dueAt,
        });
      }
      return { ok: true, version: saved.version, result };
    });
  }
}
