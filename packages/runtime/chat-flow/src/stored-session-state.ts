import {
  type Clock,
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
import type { SessionSlot } from './stored-session-steps.js';
import type { FlowSessionRefusal, FlowSessionRefusalCode } from './stored-session-refusals.js';
import type { StoredFlowSessionEvents } from './stored-session-types.js';

type Fields = { readonly [field: string]: JsonValue };
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
