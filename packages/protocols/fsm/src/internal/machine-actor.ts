import {
  type Clock,
  createEmitter,
  type Emitter,
  systemClock,
  type TimerHandle,
  type Unsubscribe,
} from '@parley/core';
import { type ActorEvents, type ActorOptions, DEFAULT_HISTORY_LIMIT } from '../actor-types.js';
import {
  callbackFailed,
  checkContext,
  type CompiledMachine,
  type CompiledTransition,
  eventType,
  findTransition,
  refusal,
} from './compiled.js';
import { HistoryRing } from './history-ring.js';
import { deadlinesFor } from './step.js';
import { COMPILED, type Machine } from '../machine.js';
import { restoreSnapshot } from '../snapshot.js';
import type { Deadline, EventObject, HistoryEntry, MachineEvent, MachineSnapshot } from '../types.js';
import type { FsmRefusal, SendResult } from '../results.js';

const NO_DEADLINES: readonly Deadline[] = Object.freeze([]);

type Listener = (payload: never) => void;

/**
 * @internal The actor: a class (not closures) so an idle instance is a dozen fields: cheap to create and to keep.
 *
 * The hot path of `send` reads the clock once, looks the event up in a one-entry cache of the
 * event's row of the transition table, and records history in a ring of two arrays (the compiled
 * transition, which holds `from`, `to` and `event`, and the time as an unboxed double), so taking
 * a transition allocates nothing. Every compiled transition has the same hidden class.
 */
export class MachineActor {
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
  /** The history, created at the first transition recorded. */
  private h: HistoryRing | undefined = undefined;
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
    const snapshot = options.snapshot === undefined ? undefined : restoreSnapshot(c, options.snapshot);
    // A snapshot that carries history resumes keeping it, unless historyLimit says otherwise.
    const limit =
      options.historyLimit ??
      (snapshot !== undefined && snapshot.history.length > 0 ? DEFAULT_HISTORY_LIMIT : 0);
    this.limit = Number.isInteger(limit) && limit > 0 ? limit : 0;
    this.timeful = this.limit !== 0 || c.timed.includes(true);
    if (snapshot !== undefined) {
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
    return this.h === undefined ? [] : this.h.entries();
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
    if (this.limit === 0) return;
    this.h ??= new HistoryRing(this.limit);
    this.h.record(t, at);
  }

  private refuse(result: FsmRefusal): FsmRefusal {
    this.ev?.emit('refused', result);
    return result;
  }

  private closedRefusal(type: string): FsmRefusal {
    const state = this.c.names[this.i] as string;
    const message = `The actor of "${this.c.id}" is closed`;
    return { ok: false, code: 'closed', state, event: type, message, reason: message };
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
