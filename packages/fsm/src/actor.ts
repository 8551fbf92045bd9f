import {
  type Clock,
  createEmitter,
  type Emitter,
  systemClock,
  type TimerHandle,
  type Unsubscribe,
  validate,
} from '@parley/core';
import { FsmError } from './errors.js';
import {
  type CompiledMachine,
  type CompiledTransition,
  eventType,
  findTransition,
  callbackFailed,
  refusal,
} from './internal/compiled.js';
import { COMPILED, deadlinesFor, type Machine } from './machine.js';
import { restoreSnapshot } from './snapshot.js';
import type {
  Deadline,
  EventObject,
  HistoryEntry,
  MachineEvent,
  MachineSnapshot,
  Refusal,
  SendResult,
} from './types.js';

/**
 * How many history entries an instance keeps unless told otherwise.
 *
 * @example
 * ```ts
 * import { DEFAULT_HISTORY_LIMIT } from '@parley/fsm';
 *
 * console.log(DEFAULT_HISTORY_LIMIT); // 100
 * ```
 */
export const DEFAULT_HISTORY_LIMIT = 100;

/**
 * Options for {@link createActor}.
 *
 * @example
 * ```ts
 * import { createManualClock } from '@parley/core';
 * import type { ActorOptions } from '@parley/fsm';
 *
 * const options: ActorOptions<{}> = { clock: createManualClock(), historyLimit: 20 };
 * ```
 */
export interface ActorOptions<TContext> {
  /** Timestamps and timeouts; the system clock by default. */
  readonly clock?: Clock;
  /**
   * A persisted snapshot to resume from; checked like `machine.restore` (all or nothing): a refused
   * snapshot creates no actor and sets no timer.
   */
  readonly snapshot?: unknown;
  /** The context of a new instance instead of the machine's; checked by its `contextSchema`. */
  readonly context?: TContext;
  /**
   * Most transitions kept in the history, oldest dropped first; {@link DEFAULT_HISTORY_LIMIT} by
   * default, 0 for none. With no history, no timeouts in the machine and no listener, `send` reads
   * no clock, and `updatedAt` is stamped when the next `snapshot()` is taken after a change.
   */
  readonly historyLimit?: number;
}

/**
 * The events an actor emits, after its state is committed.
 *
 * @example
 * ```ts
 * import type { ActorEvents } from '@parley/fsm';
 *
 * const onDone = (payload: ActorEvents<'approved', 'approve', {}>['done']) => console.log(payload.state);
 * ```
 */
export interface ActorEvents<TState extends string, TEvent extends string, TContext> {
  /** A transition was taken (by `send` or a timeout). */
  transition: { from: TState; to: TState; event: TEvent; at: number; context: TContext };
  /** An event was refused; the state did not change. */
  refused: Refusal<TState, TEvent>;
  /** A final state was reached. */
  done: { state: TState; at: number; context: TContext };
}

/**
 * A running instance of a machine: holds the current snapshot, takes events, fires timeouts on the
 * injected clock and reports typed events.
 *
 * @example
 * ```ts
 * import { createActor, requestMachine, type Actor } from '@parley/fsm';
 *
 * const actor: Actor<'pending' | 'approved' | 'rejected' | 'expired' | 'cancelled', 'approve' | 'reject' | 'expire' | 'cancel', {}> =
 *   createActor(requestMachine);
 * ```
 */
export interface Actor<TState extends string, TEvent extends string, TContext> {
  readonly machine: Machine<TState, TEvent, TContext>;
  readonly state: TState;
  readonly context: TContext;
  /** Whether the current state is final. */
  readonly done: boolean;
  /** Whether `close()` was called. */
  readonly closed: boolean;
  /** Taken transitions, oldest first, with timestamps from the clock. */
  readonly history: readonly HistoryEntry[];
  /** The current state's pending timeouts, earliest first. */
  readonly deadlines: readonly Deadline[];
  /** Takes `event`, or returns the refusal (never throws for a refused event). */
  send(event: MachineEvent<TEvent>): SendResult<TState, TEvent>;
  /** Whether `event` would be taken now (guards included). */
  can(event: MachineEvent<TEvent>): boolean;
  /** The plain-JSON snapshot to persist. */
  snapshot(): MachineSnapshot<TState, TContext>;
  /** Subscribes to an event; returns a function that unsubscribes. */
  on<K extends keyof ActorEvents<TState, TEvent, TContext> & string>(
    event: K,
    listener: (payload: ActorEvents<TState, TEvent, TContext>[K]) => void,
  ): Unsubscribe;
  /** Clears the timer; later events are refused with `closed`. Calling it twice does nothing. */
  close(): void;
}

/**
 * Creates a running instance of a machine, new or resumed from a snapshot.
 *
 * Use it wherever a protocol runs: one actor per request, session or conversation. The hot path of
 * `send` is a table lookup; the history is bounded by `historyLimit`. A resumed actor's timeouts
 * keep their absolute deadlines: an overdue one fires before any other event is taken (and on the
 * clock's next turn), a pending one after exactly the remaining time.
 *
 * @throws FsmError `invalid_snapshot`, `wrong_machine`, `version_mismatch`, `migration_failed`,
 * `unknown_state` or `invalid_context` when `snapshot` cannot be restored; `invalid_context` when
 * `context` fails the machine's `contextSchema`.
 * @example
 * ```ts
 * import { createManualClock } from '@parley/core';
 * import { createActor, requestMachine } from '@parley/fsm';
 *
 * const clock = createManualClock();
 * const actor = createActor(requestMachine, { clock });
 * actor.on('done', ({ state }) => console.log('settled', state));
 * console.log(actor.send('approve')); // { ok: true, from: 'pending', to: 'approved', event: 'approve' }
 * console.log(actor.send('reject').ok); // false (machine_done)
 * const resumed = createActor(requestMachine, { clock, snapshot: JSON.parse(JSON.stringify(actor.snapshot())) });
 * console.log(resumed.state); // approved
 * ```
 */
export function createActor<TState extends string, TEvent extends string, TContext>(
  machine: Machine<TState, TEvent, TContext>,
  options: ActorOptions<TContext> = {},
): Actor<TState, TEvent, TContext> {
  // The class is the untyped implementation of the typed interface: same members, names checked by the machine.
  return new MachineActor(
    machine as unknown as Machine<string, string, unknown>,
    options,
  ) as unknown as Actor<TState, TEvent, TContext>;
}

const NO_DEADLINES: readonly Deadline[] = Object.freeze([]);

type Listener = (payload: never) => void;

/**
 * A class (not closures) so an idle instance is a dozen fields: cheap to create and to keep.
 *
 * The hot path of `send` reads the clock once, looks the event up in a one-entry cache of the
 * event's row of the transition table, and records history in a ring of two arrays (the compiled
 * transition, which holds `from`, `to` and `event`, and the time as an unboxed double), so taking
 * a transition allocates nothing. Every compiled transition has the same hidden class.
 */
class MachineActor {
  readonly machine: Machine<string, string, unknown>;
  private readonly c: CompiledMachine;
  private readonly clock: Clock;
  private readonly limit: number;
  private i: number;
  private ctx: unknown;
  private readonly createdAt: number;
  private updatedAt: number;
  private dl: readonly Deadline[] = NO_DEADLINES;
  /** When the earliest deadline falls due; +Infinity when there is none. */
  private nextAt = Number.POSITIVE_INFINITY;
  private timer: TimerHandle | undefined = undefined;
  /** History ring: the transitions taken and their times, `hn` entries written in all. */
  private ht: CompiledTransition[] | undefined = undefined;
  private ha: number[] | undefined = undefined;
  private hn = 0;
  /** The ring slot written next. */
  private hw = 0;
  /** Whether a transition needs the time: history is kept or the machine has timeouts. */
  private readonly timeful: boolean;
  /** A transition was taken without reading the clock; `updatedAt` is stamped when next read. */
  private stale = false;
  /** The last event name sent and its row of the transition table. */
  private lt: string | undefined = undefined;
  private lr: readonly (readonly CompiledTransition[] | undefined)[] | undefined = undefined;
  private ev: Emitter<ActorEvents<string, string, unknown>> | undefined = undefined;
  closed = false;

  constructor(machine: Machine<string, string, unknown>, options: ActorOptions<unknown>) {
    this.machine = machine;
    const c = machine[COMPILED];
    this.c = c;
    this.clock = options.clock ?? systemClock;
    const limit = options.historyLimit ?? DEFAULT_HISTORY_LIMIT;
    this.limit = Number.isInteger(limit) && limit > 0 ? limit : 0;
    this.timeful = this.limit !== 0 || c.timed.includes(true);
    if (options.snapshot !== undefined) {
      const snapshot = restoreSnapshot(c, options.snapshot);
      this.i = c.index.get(snapshot.state) as number; // restoreSnapshot checked the state
      this.ctx = snapshot.context;
      this.createdAt = snapshot.createdAt;
      this.updatedAt = snapshot.updatedAt;
      for (const entry of snapshot.history) {
        // restoreSnapshot checked that each entry is a transition of the machine
        this.record(findTransition(c, entry) as CompiledTransition, entry.at);
      }
      this.setDeadlines(snapshot.deadlines);
      this.arm(); // sets no timer when there is no deadline
      return;
    }
    this.i = c.initial;
    this.ctx = options.context === undefined ? c.context : checkContext(c, options.context);
    this.createdAt = this.updatedAt = this.clock.now();
    if (c.timed[c.initial]) this.enter(this.updatedAt);
  }

  get state(): string {
    this.flush();
    return this.c.names[this.i] as string;
  }

  get context(): unknown {
    this.flush();
    return this.ctx;
  }

  get done(): boolean {
    this.flush();
    return this.c.final[this.i] === true;
  }

  get history(): readonly HistoryEntry[] {
    this.flush();
    const ht = this.ht;
    const ha = this.ha as number[];
    if (ht === undefined) return [];
    const count = Math.min(this.hn, this.limit);
    const start = this.hn <= this.limit ? 0 : this.hn % this.limit;
    const out: HistoryEntry[] = new Array(count);
    for (let k = 0; k < count; k++) {
      const slot = (start + k) % this.limit;
      const t = ht[slot] as CompiledTransition;
      out[k] = { from: t.from, to: t.to, event: t.event, at: ha[slot] as number };
    }
    return out;
  }

  get deadlines(): readonly Deadline[] {
    this.flush();
    return this.dl.slice();
  }

  send(event: MachineEvent): SendResult {
    // The clock is read only when something needs the time (history, timeouts, listeners).
    const at = this.timeful || this.ev !== undefined ? this.clock.now() : Number.NaN;
    if (at >= this.nextAt) this.fireDue(at);
    const type = typeof event === 'string' ? event : eventType(event);
    if (this.closed) return this.refuse(this.closedRefusal(type));
    let row = this.lr;
    if (type !== this.lt) {
      row = this.c.table.get(type);
      this.lt = type;
      this.lr = row;
    }
    const candidates = row === undefined ? undefined : row[this.i];
    if (candidates === undefined) return this.refuse(refusal(this.c, this.i, type));
    let t = candidates[0] as CompiledTransition;
    try {
      if (t.guard !== undefined) {
        const chosen = this.choose(candidates, event, type);
        if (chosen === undefined) {
          return this.refuse(refusal(this.c, this.i, type, candidates[candidates.length - 1]?.guardName));
        }
        t = chosen;
      }
      this.take(t, event, at); // assign runs first: when it throws, nothing has changed
    } catch (cause) {
      return this.refuse(callbackFailed(this.c, this.i, type, cause));
    }
    return t.result;
  }

  can(event: MachineEvent): boolean {
    this.flush();
    const type = eventType(event);
    const candidates = this.c.table.get(type)?.[this.i];
    if (this.closed || candidates === undefined) return false;
    try {
      return this.choose(candidates, event, type) !== undefined;
    } catch {
      return false; // a guard that throws does not hold
    }
  }

  snapshot(): MachineSnapshot<string, unknown> {
    this.flush();
    if (this.stale) {
      this.stale = false;
      this.updatedAt = Math.max(this.updatedAt, this.clock.now());
    }
    return {
      machine: this.c.id,
      version: this.c.version,
      state: this.c.names[this.i] as string,
      context: this.ctx,
      done: this.c.final[this.i] === true,
      createdAt: this.createdAt,
      updatedAt: this.updatedAt,
      deadlines: this.dl.map((d) => ({ at: d.at, event: d.event })),
      history: this.history,
    };
  }

  on(event: string, listener: Listener): Unsubscribe {
    this.ev ??= createEmitter();
    return this.ev.on(event as 'done', listener as (payload: unknown) => void);
  }

  close(): void {
    this.closed = true;
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private choose(
    candidates: readonly CompiledTransition[],
    event: MachineEvent,
    type: string,
  ): CompiledTransition | undefined {
    const object = typeof event === 'string' ? (this.c.eventObjects.get(type) as EventObject) : event;
    for (const candidate of candidates) {
      if (candidate.guard === undefined || candidate.guard(this.ctx, object)) return candidate;
    }
    return undefined;
  }

  private take(t: CompiledTransition, event: MachineEvent, at: number): void {
    if (t.assign !== undefined) {
      const object = typeof event === 'string' ? (this.c.eventObjects.get(t.event) as EventObject) : event;
      this.ctx = { ...(this.ctx as object), ...t.assign(this.ctx, object) };
    }
    this.i = t.toIndex;
    if (Number.isNaN(at))
      this.stale = true; // the time was not read: updatedAt is stamped lazily
    else this.updatedAt = at;
    if (this.limit !== 0) this.record(t, at);
    if (t.retimes) this.enter(at);
    const ev = this.ev;
    if (ev === undefined) return;
    ev.emit('transition', { from: t.from, to: t.to, event: t.event, at, context: this.ctx });
    if (t.final) ev.emit('done', { state: t.to, at, context: this.ctx });
  }

  private record(t: CompiledTransition, at: number): void {
    const limit = this.limit;
    if (limit === 0) return;
    let ht = this.ht;
    let ha = this.ha as number[];
    if (ht === undefined) {
      ht = this.ht = [];
      ha = this.ha = [];
    }
    const slot = this.hw;
    ht[slot] = t; // appends until the ring is full, then overwrites the oldest
    ha[slot] = at;
    this.hw = slot + 1 === limit ? 0 : slot + 1;
    this.hn++;
  }

  private refuse(result: Refusal): Refusal {
    this.ev?.emit('refused', result);
    return result;
  }

  private closedRefusal(type: string): Refusal {
    const state = this.c.names[this.i] as string;
    return { ok: false, code: 'closed', state, event: type, reason: `The actor of "${this.c.id}" is closed` };
  }

  private setDeadlines(deadlines: readonly Deadline[]): void {
    this.dl = deadlines;
    this.nextAt = deadlines.length === 0 ? Number.POSITIVE_INFINITY : (deadlines[0] as Deadline).at;
  }

  /** Enters the current state's timeouts, measured from `at`. */
  private enter(at: number): void {
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.setDeadlines(this.c.timed[this.i] ? deadlinesFor(this.c, this.i, at) : NO_DEADLINES);
    this.arm();
  }

  private arm(): void {
    if (this.closed || this.dl.length === 0) return;
    const delay = Math.max(0, this.nextAt - this.clock.now());
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.fireDue(this.clock.now());
    }, delay);
  }

  /** Fires any timeout already due (a late timer never lets a later event in first). */
  private flush(): void {
    if (this.nextAt !== Number.POSITIVE_INFINITY && !this.closed) {
      const now = this.clock.now();
      if (now >= this.nextAt) this.fireDue(now);
    }
  }

  /** A timeout refused in the state: spending it changed the snapshot. */
  private spent(at: number): void {
    if (at > this.updatedAt) this.updatedAt = at;
  }

  private fireDue(now: number): void {
    if (this.closed) return;
    let due = this.dl[0];
    while (due !== undefined && due.at <= now) {
      const candidates = this.c.table.get(due.event)?.[this.i];
      // Taken or refused, this timeout is spent; a transition that leaves the state then sets the new state's own.
      this.setDeadlines(this.dl.slice(1));
      // A guard or assign that throws is refused here: nothing may escape a timer callback.
      try {
        const t = candidates === undefined ? undefined : this.choose(candidates, due.event, due.event);
        if (t === undefined) {
          this.spent(due.at);
          this.refuse(refusal(this.c, this.i, due.event, candidates?.[candidates.length - 1]?.guardName));
        } else this.take(t, due.event, due.at);
      } catch (cause) {
        this.spent(due.at);
        this.refuse(callbackFailed(this.c, this.i, due.event, cause));
      }
      due = this.dl[0];
    }
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.arm();
  }
}

function checkContext(c: CompiledMachine, context: unknown): unknown {
  const schema = c.options.contextSchema;
  if (schema === undefined) return context;
  const result = validate(schema, context);
  if (result.ok) return result.value;
  throw new FsmError('invalid_context', `The context does not match machine "${c.id}"`, {
    details: { machine: c.id, issues: result.issues, missingFields: result.missingFields },
  });
}
