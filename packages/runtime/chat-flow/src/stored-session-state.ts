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
import {
  draftIn,
  type FlowDraft,
  type FlowRetry,
  type FlowSessionRecord,
  mergeDraft,
} from './stored-session-record.js';
import type { SessionSlot, SessionVerdict } from './stored-session-steps.js';
import { decodeText } from './stored-session-compact.js';
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
  /** The record decoded; `undefined` while the handle is compact (it keeps `#text` instead). */
  #record: FlowSessionRecord<TStep, TContext, TData> | undefined;
  /** The record as this handle last took, wrote or released it (the kernel's basis); `undefined` while compact. */
  #committed: Committed<Slot<TStep, TContext, TData>> | undefined = undefined;
  /** The JSON text of `#committed`'s data, when the write that committed it answered with it. */
  #text: string | undefined = undefined;
  /** The fence and deadline of the committed record, kept while the handle is compact. */
  #fence = 0;
  #deadlineAt: number | null = null;
  protected ver: number;
  protected rev: number;
  protected lease: Lease | undefined = undefined;
  protected lost = false;
  protected closed = false;
  private waits: Set<Sleeper> | undefined = undefined;
  protected events: Emitter<StoredFlowSessionEvents<TStep, TContext>> | undefined = undefined;
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
    this.#record = initial;
    this.ver = initialVersion;
    this.rev = initialRev;
    this.id = initial.id;
  }

  /** The record this handle last wrote or read, decoded again first when the handle was compact. */
  protected get rec(): FlowSessionRecord<TStep, TContext, TData> {
    return this.#record ?? this.#decode();
  }

  protected set rec(record: FlowSessionRecord<TStep, TContext, TData>) {
    this.#record = record;
  }

  /** The record as this handle last took, wrote or released it: the kernel's basis (no read) for the next write. */
  protected get committed(): Committed<Slot<TStep, TContext, TData>> | undefined {
    if (this.#record === undefined) this.#decode();
    return this.#committed;
  }

  /**
   * @internal Holds `committed` (written or read: `start` and `resume` hand theirs over) as the basis
   * of the next write, with the text of its data when the write that committed it gave it.
   */
  hold(committed: Committed<Slot<TStep, TContext, TData>>, text: string | undefined): void {
    this.#committed = committed;
    this.#text = text;
  }

  /**
   * @internal Lets go of the decoded record and keeps the text its last write stored, when the
   * handle is idle (no lease, nothing waiting, no race lost: a record a write lost to is held only
   * then) and the record it holds is the one that write committed, unleased (a lease it could not
   * give back leaves it leased); the next use decodes it again, without a read. A handle holds its
   * committed record from `start` or `resume` on, and every write that moves its version or record
   * moves its committed record with it. True when the handle is compact.
   */
  compact(): boolean {
    const record = this.#record;
    if (record === undefined) return true;
    const held = this.#committed as Committed<Slot<TStep, TContext, TData>>;
    if (this.#text === undefined || this.lost || this.lease !== undefined) return false;
    if ((this.waits?.size ?? 0) > 0 || held.lease !== null) return false;
    if ((held.value as { readonly record?: unknown }).record !== record) return false;
    this.#fence = held.fence;
    this.#deadlineAt = held.deadlineAt;
    this.#record = undefined;
    this.#committed = undefined;
    return true;
  }

  /** The record and basis read back from the text a compact handle keeps. */
  #decode(): FlowSessionRecord<TStep, TContext, TData> {
    const value = decodeText<TStep, TContext, TData>(this.flow, this.id, this.#text as string);
    const { key, ver: storeVersion } = this;
    this.#committed = {
      key,
      value,
      storeVersion,
      lease: null,
      fence: this.#fence,
      deadlineAt: this.#deadlineAt,
    };
    this.#record = value.record;
    return value.record;
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
      readonly text?: string | undefined;
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
    const committed = done.committed as Committed<Slot<TStep, TContext, TData>>; // present: the slot came from it
    this.hold(committed, done.text);
    this.ver = committed.storeVersion;
    this.events?.emit('saved', { id: this.id, version: this.ver, at: slot.record.savedAt });
    return { ok: true, version: this.ver, out: verdict.out };
  }

  protected draftOf(): FlowDraft<TStep> | null {
    return draftIn(this.rec);
  }
}
