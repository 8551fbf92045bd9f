import { type Committed, KernelError, type KernelRefusal, type Lease } from '@parley/core';
import type { FlowSubmitResult } from '@parley/fsm';
import type { FlowSessionRefusal } from './stored-session-refusals.js';
import { SessionState, type Written } from './stored-session-state.js';
import {
  check,
  type SessionChange,
  type SessionSlot as Slot,
  sessionCodeOf,
  type WriteEvent,
  writeStep,
} from './stored-session-steps.js';
import { type SubmitOptions, submitChange } from './stored-session-submit.js';
import type {
  FlowAcquireOptions,
  FlowEffectResult,
  FlowSaveResult,
  StoredFlowSession,
  StoredSubmitResult,
} from './stored-session-types.js';

const DONE: Promise<unknown> = Promise.resolve();
const RELEASED: Promise<void> = Promise.resolve();
/** A lease taken, with the committed record it was taken on (and its data's text when taking it wrote it). */
type Taken<T> = { ok: true; lease: Lease; committed: Committed<T> | undefined; text?: string | undefined };
/** A write's outcome as a save's. */
const saved = (done: Written<unknown> | FlowSessionRefusal): FlowSaveResult =>
  done.ok ? { ok: true, version: done.version } : done;
const same = <T>(value: T): T => value;
/** A step that changes nothing: with `release`, the write gives the lease back and nothing else. */
const unchanged = <T>(value: T | undefined) => ({ value, effects: [] as readonly never[] });

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

  update(data: TData, options: { readonly release?: boolean } = {}): Promise<FlowSaveResult> {
    return this.exclusive(() => {
      const refused = this.gate();
      if (refused !== undefined) return Promise.resolve(refused);
      const change: SessionChange<TStep, TContext, TData, undefined> = ({ flow, draft, retry }) => ({
        next: { flow, draft, data, retry },
        out: undefined,
      });
      return this.write(change, options.release === true, saved);
    });
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
      const { message } = result;
      const waiting = this.rec.retry;
      if (waiting === null)
        return { ok: false, code: 'retries_exhausted', attempts, message, reason: message, result };
      if (!(await this.sleep(waiting.dueAt - clock.now())))
        return this.refuse('closed', `session ${this.id} was closed`);
    }
  }

  /**
   * Runs one write at a time, in call order: each after the one before settles, however it settled.
   * Once the last settled, the handle (held open for many turns) lets go of its answer.
   */
  private exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.chain.then(task, task);
    this.chain = run;
    const idle = (): void => {
      if (this.chain === run) this.chain = DONE;
    };
    run.then(idle, idle);
    return run;
  }

  async acquire({ ttlMs, current = false }: FlowAcquireOptions): Promise<FlowSaveResult> {
    if (this.closed) return this.refuse('closed', `session ${this.id} is closed`);
    const first = await this.take(ttlMs);
    const taken = first.ok ? first : await this.retrying(() => this.take(ttlMs), first);
    if (!taken.ok) return taken;
    // the clock is read only to check an expiry the record has
    const slot = taken.committed?.value;
    const expires = slot !== undefined && 'record' in slot && slot.record.expiresAt !== null;
    const checked = check(slot, this.id, expires ? this.settings.clock.now() : 0);
    if (!checked.ok || taken.committed === undefined || (current && checked.out.rev !== this.rev)) {
      await this.settings.kernel.release(taken.lease);
      if (checked.ok && taken.committed !== undefined) {
        this.lost = true; // `current`: another writer changed the record since this handle's last write
        return this.refuse('conflict', `session ${this.id} was changed by another writer`);
      }
      const why = checked.ok
        ? { code: 'not_found' as const, reason: `no session ${this.id} is stored` }
        : checked;
      return this.refuse(why.code, why.reason);
    }
    this.lease = taken.lease;
    this.rec = checked.out.record;
    this.rev = checked.out.rev;
    this.ver = taken.committed.storeVersion;
    this.hold(taken.committed, taken.text);
    this.lost = false;
    return { ok: true, version: this.ver };
  }

  release(): Promise<void> {
    const lease = this.lease;
    return lease === undefined ? RELEASED : this.giveBack(lease); // nothing held: nothing to wait for
  }

  private async giveBack(lease: Lease): Promise<void> {
    const { kernel, codec } = this.settings;
    // best effort: a lease not given back (a failing store) is renewed by the next `acquire`, or expires
    const options = { lease, release: true, basis: this.basis() };
    const done = await kernel.apply(this.key, codec, unchanged, undefined, options);
    if (done.ok || done.code !== 'store_failed') this.lease = undefined;
    if (done.ok && done.committed !== undefined) {
      this.ver = done.committed.storeVersion;
      this.hold(done.committed, done.text);
    }
  }

  override compact(): boolean {
    return this.chain === DONE && super.compact(); // no write of it is under way
  }

  /** The committed record this handle holds, when it is the version it last saw. */
  private basis(): Committed<Slot<TStep, TContext, TData>> | undefined {
    const committed = this.committed;
    return committed?.storeVersion === this.ver ? committed : undefined;
  }

  /** Takes the lease, or renews the one this handle could not give back; with the committed record. */
  private take(ttlMs: number): Promise<Taken<Slot<TStep, TContext, TData>> | KernelRefusal> {
    const held = this.lease;
    // the record this handle lost a write to, or committed last, stands for the read (the lease lands only on it)
    const basis = this.newer ?? this.basis();
    this.newer = undefined;
    if (held === undefined)
      return this.settings.kernel.acquire(this.key, this.settings.codec, { ttlMs, basis });
    return this.renewOrTake(held, ttlMs, basis);
  }

  /** Renews the lease `held` (a read under it follows), or takes it afresh once it was lost. */
  private async renewOrTake(
    held: Lease,
    ttlMs: number,
    basis: Committed<Slot<TStep, TContext, TData>> | undefined,
  ): Promise<Taken<Slot<TStep, TContext, TData>> | KernelRefusal> {
    const { kernel, codec } = this.settings;
    const renewed = await kernel.renew(held, { ttlMs });
    if (!renewed.ok) {
      if (renewed.code !== 'lease_lost') return renewed;
      this.lease = undefined; // fenced off or expired: taken like any other
      return kernel.acquire(this.key, codec, { ttlMs, basis });
    }
    this.lease = renewed.lease;
    const read = await kernel.apply(this.key, codec, unchanged, undefined, { lease: renewed.lease });
    return read.ok ? { ok: true, lease: renewed.lease, committed: read.committed } : read;
  }

  /**
   * After a kernel operation refused `first`: runs it again while the store throws, on the clock
   * (`saveRetryDelaysMs`); any other refusal is the handle's at once.
   */
  private async retrying<T extends { readonly ok: true }>(
    run: () => Promise<T | KernelRefusal>,
    first: KernelRefusal,
  ): Promise<T | FlowSessionRefusal> {
    const { saveDelays, clock } = this.settings;
    const id = this.id;
    for (let attempt = 1; ; attempt++) {
      const done = attempt === 1 ? first : await run();
      if (done.ok) return done;
      if (done.code !== 'store_failed') return this.refuseKernel(done, attempt);
      const delay = saveDelays[attempt - 1];
      this.events?.emit('save-failed', {
        ...{ id, attempt, message: done.message, reason: done.message },
        ...{ willRetry: delay !== undefined, at: clock.now() },
      });
      if (delay === undefined) return this.refuseKernel(done, attempt);
      if (!(await this.sleep(delay))) return this.refuse('closed', `session ${id} was closed while saving`);
    }
  }

  /**
   * Runs `change` as one kernel step on the committed record (at the revision this handle saw,
   * under its lease when it holds one), retrying a throwing store on the clock. No async frame of
   * its own: the kernel's answer is followed.
   */
  protected write<R, A = Written<R> | FlowSessionRefusal>(
    change: SessionChange<TStep, TContext, TData, R>,
    release = false,
    then?: (saved: Written<R> | FlowSessionRefusal) => A,
  ): Promise<A> {
    const { idleTimeoutMs } = this.settings;
    const event: WriteEvent<TStep, TContext, TData, R> = {
      id: this.id,
      rev: this.rev,
      idleTimeoutMs,
      change,
    };
    // `then` maps the outcome in the same reaction (one promise per write, not one more per caller)
    const end = then ?? (same as (saved: Written<R> | FlowSessionRefusal) => A);
    return this.applyWrite(event, release).then((first) => {
      if (first.ok) return end(this.wrote(first, release));
      const again = () => this.applyWrite(event, release); // made only when the store failed
      return this.retrying(again, first).then((done) => end(done.ok ? this.wrote(done, release) : done));
    });
  }

  /** One kernel step of a write; a retry after a failed store write names the basis again: the CAS decides. */
  private applyWrite<R>(event: WriteEvent<TStep, TContext, TData, R>, release: boolean) {
    const { kernel, codec } = this.settings;
    const lease = this.lease;
    const basis = this.basis();
    const options = lease === undefined ? { basis } : { lease, release, basis };
    return kernel.apply(this.key, codec, writeStep<TStep, TContext, TData, R>(), event, options);
  }

  /** A kernel refusal as the handle's: a fenced-off lease is dropped, a lost race makes the handle stale. */
  private refuseKernel(refused: KernelRefusal, attempts: number): FlowSessionRefusal {
    const code = sessionCodeOf(refused.code);
    if (refused.code === 'lease_lost') this.lease = undefined;
    if (code === 'conflict') this.lost = true;
    if (code !== 'store_failed') return this.refuse(code, refused.message);
    const reason = `the store failed ${attempts} time(s): ${refused.message}`;
    const cause =
      refused.cause ?? new KernelError('store_failed', refused.message, { details: { key: refused.key } });
    return this.refuse(code, reason, { attempts, cause });
  }

  private submitNow(
    fields: unknown,
    options: SubmitOptions<TStep, TContext, TData>,
    retryAfterMs?: number | null,
  ): Promise<StoredSubmitResult<TStep, TContext>> {
    return this.exclusive(() => {
      const refused = this.gate();
      if (refused !== undefined) return Promise.resolve(refused);
      let schedule = false;
      const change: SessionChange<TStep, TContext, TData, FlowSubmitResult<TStep, TContext>> = (
        record,
        at,
      ) => {
        const made = submitChange(this.flow, this.settings, record, at, fields, options, retryAfterMs);
        schedule = made.schedule;
        return made;
      };
      return this.write(change, options.release === true, (saved) => {
        if (!saved.ok) return saved;
        const result = saved.out;
        const retry = this.rec.retry;
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
        return { ok: true, version: saved.version, result } as const;
      });
    });
  }
}
