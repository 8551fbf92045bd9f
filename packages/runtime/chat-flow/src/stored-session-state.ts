import {
  type Clock,
  type Committed,
  createEmitter,
  type Emitter,
  type JsonValue,
  type Kernel,
  type Lease,
  type RecordCodec,
  type TimerHandle,
  type Unsubscribe,
} from '@parley/core';
import type { Flow } from '@parley/fsm';
import type { FlowSnapshot } from '@parley/fsm';
import type { FlowDraft, FlowRetry, FlowSessionRecord } from './stored-session-record.js';
import type { SessionSlot, SessionVerdict } from './stored-session-steps.js';
import type { FlowSessionRefusal, FlowSessionRefusalCode } from './stored-session-refusals.js';
import type { StoredFlowSessionEvents } from './stored-session-types.js';

type Fields = { readonly [field: string]: JsonValue };
type Slot<TStep extends string, TContext, TData> = SessionSlot<TStep, TContext, TData>;
/** @internal What a write of a handle answers: the version it committed and the step's answer. */
export type Written<R> = { readonly ok: true; readonly version: number; readonly out: R };
const LOST = { code: 'conflict', reason: 'the committed record is not one this handle can write' } as const;
type Sleeper = { timer: TimerHandle; wake: (woke: boolean) => void };

/** @internal What a handle needs from its store: checked once, shared by every handle. */
export interface HandleSettings<TStep extends string, TContext = unknown, TData = unknown> {
  readonly kernel: Kernel;
  readonly codec: RecordCodec<SessionSlot<TStep, TContext, TData>>;
  readonly clock: Clock;
  readonly draftSteps: readonly TStep[];
  readonly saveDelays: readonly number[];
  readonly effectDelays: readonly number[];
  readonly idleTimeoutMs: number | undefined;
  readonly historyLimit: number | undefined;
  readonly wait: ((ms: number) => Promise<void>) | undefined;
}

/**
 * @internal What a stored session handle holds and reads: the record it last wrote or read at
 * `version` and revision `rev`, the lease it holds, its clock waits and its refusals. The writes
 * are in {@link StoredSession}.
 */
export abstract class SessionState<TStep extends string, TContext, TData> {
  readonly id: string;
  protected rec: FlowSessionRecord<TStep, TContext, TData>;
  protected ver: number;
  protected rev: number;
  protected lease: Lease | undefined = undefined;
  protected lost = false;
  protected closed = false;
  private waits: Set<Sleeper> | undefined = undefined;
  protected events: Emitter<StoredFlowSessionEvents<TStep, TContext>> | undefined = undefined;
  /** The record as this handle last took, wrote or released it: the kernel's basis (no read) for the next write. */
  protected committed: Committed<Slot<TStep, TContext, TData>> | undefined = undefined;
  /** The record a write of this handle lost to (as that write read it): the next `acquire`'s basis. */
  protected newer: Committed<Slot<TStep, TContext, TData>> | undefined = undefined;

  constructor(
    protected readonly flow: Flow<TStep, TContext>,
    protected readonly settings: HandleSettings<TStep, TContext, TData>,
    readonly key: string,
    initial: FlowSessionRecord<TStep, TContext, TData>,
    initialVersion: number,
    initialRev: number,
  ) {
    this.rec = initial;
    this.ver = initialVersion;
    this.rev = initialRev;
    this.id = initial.id;
  }

  get version(): number {
    return this.ver;
  }

  get step(): TStep | 'done' {
    return this.rec.flow.state;
  }

  get status(): FlowSnapshot['status'] {
    return this.rec.flow.status;
  }

  get done(): boolean {
    return this.rec.flow.done;
  }

  get prompt(): string | undefined {
    return this.flow.prompt(this.rec.flow);
  }

  get fields(): FlowSnapshot['fields'] {
    return this.rec.flow.fields;
  }

  get mark(): string | null {
    return this.rec.flow.mark;
  }

  get draft(): FlowDraft<TStep> | null {
    return this.draftOf();
  }

  get retry(): FlowRetry<TStep> | null {
    return this.rec.retry;
  }

  get data(): TData {
    return this.rec.data;
  }

  get expiresAt(): number | null {
    return this.rec.expiresAt;
  }

  get stale(): boolean {
    return this.lost;
  }

  snapshot(): FlowSnapshot<TStep, TContext> {
    return this.rec.flow;
  }

  record(): FlowSessionRecord<TStep, TContext, TData> {
    return this.rec;
  }

  merged(fields: Fields): Fields {
    return mergeDraft(this.draftOf(), fields);
  }

  on<K extends keyof StoredFlowSessionEvents & string>(
    event: K,
    listener: (payload: StoredFlowSessionEvents<TStep, TContext>[K]) => void,
  ): Unsubscribe {
    this.events ??= createEmitter();
    return this.events.on(event, listener);
  }

  close(): void {
    this.closed = true;
    if (this.waits === undefined) return;
    for (const wait of [...this.waits]) {
      this.settings.clock.clearTimeout(wait.timer);
      wait.wake(false);
    }
  }

  protected refuse(code: FlowSessionRefusalCode, message: string, extra: object = {}): FlowSessionRefusal {
    this.events?.emit('refused', {
      id: this.id,
      code,
      message,
      reason: message,
      at: this.settings.clock.now(),
    });
    return { ok: false, code, message, reason: message, ...extra };
  }

  /** Sleeps on the clock; false when the handle was closed meanwhile. */
  protected sleep(ms: number): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    const wait = this.settings.wait;
    if (wait !== undefined) return wait(Math.max(0, ms)).then(() => !this.closed);
    this.waits ??= new Set();
    const waits = this.waits;
    return new Promise((resolve) => {
      const entry: Sleeper = {
        wake: (woke: boolean) => {
          waits.delete(entry);
          resolve(woke);
        },
        timer: this.settings.clock.setTimeout(() => entry.wake(true), Math.max(0, ms)),
      };
      waits.add(entry);
    });
  }

  protected gate(): FlowSessionRefusal | undefined {
    const id = this.id;
    if (this.closed) return this.refuse('closed', `session ${id} is closed`);
    if (this.lost)
      return this.refuse('stale', `session ${id} lost a race to another writer: resume it again`);
    const expiresAt = this.rec.expiresAt;
    if (expiresAt !== null && this.settings.clock.now() >= expiresAt) {
      return this.refuse('expired', `session ${id} expired at ${new Date(expiresAt).toISOString()}`);
    }
    return undefined;
  }

  /** What a write the kernel took means for the handle: the record it committed, or the step's refusal. */
  protected wrote<R>(
    done: {
      readonly committed: Committed<Slot<TStep, TContext, TData>> | undefined;
      readonly effects: readonly SessionVerdict<R>[];
    },
    release: boolean,
  ): Written<R> | FlowSessionRefusal {
    if (release) this.lease = undefined; // given back by this write (or there was none)
    const verdict = done.effects[0];
    const slot = done.committed?.value;
    if (verdict === undefined || !verdict.ok || slot === undefined || 'problem' in slot) {
      this.lost = true; // the committed record is not the one this handle saw
      this.newer = done.committed; // as read
      const why = verdict !== undefined && !verdict.ok ? verdict : LOST;
      return this.refuse(why.code, why.reason, { version: done.committed?.storeVersion ?? null });
    }
    this.rec = slot.record;
    this.rev = slot.rev;
    this.committed = done.committed as Committed<Slot<TStep, TContext, TData>>; // present: the slot came from it
    this.ver = this.committed.storeVersion;
    this.events?.emit('saved', { id: this.id, version: this.ver, at: slot.record.savedAt });
    return { ok: true, version: this.ver, out: verdict.out };
  }

  protected draftOf(): FlowDraft<TStep> | null {
    return draftIn(this.rec);
  }
}

/** @internal The draft of a record's current step and part, or `null`. */
export function draftIn<TStep extends string>(record: {
  readonly draft: FlowDraft<TStep> | null;
  readonly flow: FlowSnapshot<TStep, unknown>;
}): FlowDraft<TStep> | null {
  const { draft, flow } = record;
  return draft !== null && draft.step === flow.state && draft.part === flow.part ? draft : null;
}

/** @internal `fields` merged into `draft`: lists joined without duplicates, other fields replaced. */
export function mergeDraft(draft: FlowDraft | null, fields: Fields): Fields {
  const out: Record<string, JsonValue> = { ...draft?.fields };
  for (const [name, value] of Object.entries(fields)) {
    const before = out[name];
    out[name] = Array.isArray(before) && Array.isArray(value) ? [...new Set([...before, ...value])] : value;
  }
  return out;
}
