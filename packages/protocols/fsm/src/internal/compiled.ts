import { MAX_TIMEOUT_MS, validate } from '@parley/core';
import { FsmError } from '../errors.js';
import type { Assign, EventObject, Guard, MachineEvent, MachineOptions } from '../types.js';
import type { FsmRefusal, FsmRefusalCode, Transitioned } from '../results.js';

/** One transition after compilation: indexes instead of names, and its success result prebuilt. */
export interface CompiledTransition {
  readonly from: string;
  readonly to: string;
  readonly toIndex: number;
  readonly event: string;
  // Every field is always present (undefined when absent), so all transitions share one hidden
  // class and the runtime's property reads stay monomorphic.
  readonly guard: Guard<unknown> | undefined;
  readonly guardName: string | undefined;
  readonly assign: Assign<unknown> | undefined;
  /** No target: the state is kept and not re-entered (its timeouts keep running). */
  readonly internal: boolean;
  /** Whether taking it sets or clears timeouts: not internal, and its source or target is timed. */
  readonly retimes: boolean;
  /** Whether the target is final. */
  readonly final: boolean;
  readonly description: string | undefined;
  /** The frozen result returned by `send`, so taking a transition allocates nothing for it. */
  readonly result: Transitioned;
}

/** A machine compiled to lookup tables at definition time. */
export interface CompiledMachine {
  readonly id: string;
  readonly version: number;
  readonly context: unknown;
  readonly options: MachineOptions<unknown>;
  readonly names: readonly string[];
  readonly index: ReadonlyMap<string, number>;
  readonly initial: number;
  readonly final: readonly boolean[];
  readonly events: readonly string[];
  /** event → state index → candidates, tried in order. */
  readonly table: ReadonlyMap<string, readonly (readonly CompiledTransition[] | undefined)[]>;
  /** state index → its timeouts, shortest first. */
  readonly after: readonly (readonly { readonly ms: number; readonly event: string }[] | undefined)[];
  /** One frozen `{ type }` per event, handed to guards when an event is sent by name. */
  readonly eventObjects: ReadonlyMap<string, EventObject>;
  /** Whether any state has a timeout. */
  readonly timed: readonly boolean[];
}

interface RawTransition {
  readonly target?: unknown;
  readonly guard?: unknown;
  readonly assign?: unknown;
  readonly description?: unknown;
}

interface RawState {
  readonly on?: Readonly<Record<string, unknown>>;
  readonly after?: Readonly<Record<string, unknown>>;
  readonly final?: boolean;
}

/** The untyped shape compileMachine reads; the public signatures check it at compile time. */
export interface RawMachineConfig extends MachineOptions<unknown> {
  readonly initial: string;
  readonly guards?: Readonly<Record<string, unknown>>;
  readonly states: Readonly<Record<string, RawState>>;
}

/** Checks a definition and builds its tables. */
export function compileMachine(config: RawMachineConfig): CompiledMachine {
  const invalid = (message: string, details: Record<string, unknown> = {}): FsmError =>
    new FsmError('invalid_definition', `Machine "${String(config.id)}": ${message}`, {
      details: { machine: config.id, ...details },
    });
  if (typeof config.id !== 'string' || config.id === '') throw invalid('id must be a non-empty string');
  if (!Number.isInteger(config.version) || config.version < 1) {
    throw invalid('version must be a positive integer', { version: config.version });
  }
  const names = Object.keys(config.states ?? {});
  if (names.length === 0) throw invalid('it needs at least one state');
  const initial = names.indexOf(config.initial);
  if (initial < 0)
    throw invalid(`the initial state "${config.initial}" is not declared`, { state: config.initial });
  const index = new Map(names.map((name, i) => [name, i]));
  const table = new Map<string, (CompiledTransition[] | undefined)[]>();
  const final: boolean[] = [];
  const after: ({ ms: number; event: string }[] | undefined)[] = [];
  const guards = config.guards ?? {};

  names.forEach((name, i) => {
    const state = config.states[name] as RawState;
    final.push(state.final === true);
    const on = state.on ?? {};
    if (state.final === true && (Object.keys(on).length > 0 || state.after !== undefined)) {
      throw invalid(`final state "${name}" cannot have transitions or timeouts`, { state: name });
    }
    for (const [event, spec] of Object.entries(on)) {
      const list: readonly unknown[] = Array.isArray(spec) ? spec : [spec];
      if (list.length === 0)
        throw invalid(`"${name}" has no transition for "${event}"`, { state: name, event });
      const candidates = list.map((item): CompiledTransition => {
        const raw: RawTransition = typeof item === 'string' ? { target: item } : (item as RawTransition);
        const internal = raw.target === undefined;
        const to = internal ? name : raw.target;
        const toIndex = typeof to === 'string' ? index.get(to) : undefined;
        if (toIndex === undefined) {
          throw invalid(`"${name}" on "${event}" targets "${String(to)}", which is not declared`, {
            state: name,
            event,
            target: to,
          });
        }
        const { guard, guardName } = resolveGuard(raw.guard, guards, () =>
          invalid(`"${name}" on "${event}" names the unknown guard "${String(raw.guard)}"`, {
            guard: raw.guard,
          }),
        );
        if (raw.assign !== undefined && typeof raw.assign !== 'function') {
          throw invalid(`"${name}" on "${event}" has an assign that is not a function`, {
            state: name,
            event,
          });
        }
        const target = to as string;
        return {
          from: name,
          to: target,
          toIndex,
          event,
          guard,
          guardName,
          assign: raw.assign as Assign<unknown> | undefined,
          internal,
          retimes: false, // set below, once every state's timeouts are known
          final: false,
          description: typeof raw.description === 'string' ? raw.description : undefined,
          result: Object.freeze({ ok: true as const, from: name, to: target, event }),
        };
      });
      let row = table.get(event);
      if (row === undefined) {
        row = new Array<CompiledTransition[] | undefined>(names.length).fill(undefined);
        table.set(event, row);
      }
      row[i] = candidates;
    }
    after.push(compileAfter(state, name, on, invalid));
  });

  const timed = after.map((a) => a !== undefined);
  for (const row of table.values()) {
    row.forEach((candidates, i) => {
      candidates?.forEach((t, k) => {
        const retimes = !t.internal && (timed[i] === true || timed[t.toIndex] === true);
        candidates[k] = Object.freeze({ ...t, retimes, final: final[t.toIndex] === true });
      });
    });
  }
  const events = [...table.keys()];
  return Object.freeze({
    id: config.id,
    version: config.version,
    context: config.context,
    options: config,
    names,
    index,
    initial,
    final,
    events,
    table,
    after,
    timed,
    eventObjects: new Map(events.map((event) => [event, Object.freeze({ type: event })])),
  });
}

/** The compiled transition a history entry records, if the machine has it. */
export function findTransition(
  compiled: CompiledMachine,
  entry: { readonly from: string; readonly to: string; readonly event: string },
): CompiledTransition | undefined {
  const from = compiled.index.get(entry.from);
  const candidates = from === undefined ? undefined : compiled.table.get(entry.event)?.[from];
  return candidates?.find((t) => t.to === entry.to);
}

/** The name of a sent event. */
export function eventType(event: MachineEvent): string {
  return typeof event === 'string' ? event : event?.type;
}

/** Builds the refusal for an event that no transition takes from state `index`. */
export function refusal(compiled: CompiledMachine, index: number, event: string, guard?: string): FsmRefusal {
  const state = compiled.names[index] as string;
  let code: FsmRefusalCode;
  let reason: string;
  if (guard !== undefined) {
    code = 'guard_failed';
    reason = `Guard "${guard}" does not allow "${event}" in state "${state}"`;
  } else if (compiled.final[index] === true) {
    code = 'machine_done';
    reason = `The machine is done (final state "${state}"); "${event}" is ignored`;
  } else if (!compiled.table.has(event)) {
    code = 'unknown_event';
    reason = `Machine "${compiled.id}" declares no event "${String(event)}"`;
  } else {
    code = 'event_not_accepted';
    reason = `State "${state}" does not accept "${event}"`;
  }
  return guard === undefined
    ? { ok: false, code, state, event, message: reason, reason }
    : { ok: false, code, state, event, message: reason, reason, guard };
}

/**
 * The refusal of an event whose guard or `assign` threw: a host callback's failure is contained
 * (never thrown out of `send` or a timer) and nothing changes.
 */
export function callbackFailed(
  compiled: CompiledMachine,
  index: number,
  event: string,
  cause: unknown,
): FsmRefusal {
  const state = compiled.names[index] as string;
  const reason = `A guard or assign of "${event}" in state "${state}" threw: ${String(cause)}`;
  return { ok: false, code: 'callback_failed', state, event, message: reason, reason, cause };
}

function resolveGuard(
  raw: unknown,
  guards: Readonly<Record<string, unknown>>,
  unknown: () => FsmError,
): { guard: Guard<unknown> | undefined; guardName: string | undefined } {
  if (raw === undefined) return { guard: undefined, guardName: undefined };
  if (typeof raw === 'function') return { guard: raw as Guard<unknown>, guardName: raw.name || 'guard' };
  const named = typeof raw === 'string' && Object.hasOwn(guards, raw) ? guards[raw] : undefined;
  if (typeof named !== 'function') throw unknown();
  return { guard: named as Guard<unknown>, guardName: raw as string };
}

function compileAfter(
  state: RawState,
  name: string,
  on: Readonly<Record<string, unknown>>,
  invalid: (message: string, details?: Record<string, unknown>) => FsmError,
): { ms: number; event: string }[] | undefined {
  if (state.after === undefined) return undefined;
  const timeouts = Object.entries(state.after).map(([key, event]) => {
    const ms = Number(key);
    if (!Number.isFinite(ms) || ms <= 0 || ms > MAX_TIMEOUT_MS) {
      throw invalid(`"${name}" has an invalid timeout "${key}" (ms in (0, ${MAX_TIMEOUT_MS}])`, {
        state: name,
        after: key,
      });
    }
    if (typeof event !== 'string' || !Object.hasOwn(on, event)) {
      throw invalid(`"${name}" times out with "${String(event)}", which it does not accept`, {
        state: name,
        event,
      });
    }
    return { ms, event };
  });
  timeouts.sort((a, b) => a.ms - b.ms);
  return timeouts.length === 0 ? undefined : timeouts;
}

/** @internal A new instance's context, checked by the machine's `contextSchema` when it has one. */
export function checkContext(c: CompiledMachine, context: unknown): unknown {
  const schema = c.options.contextSchema;
  if (schema === undefined) return context;
  const result = validate(schema, context);
  if (result.ok) return result.value;
  throw new FsmError('invalid_context', `The context does not match machine "${c.id}"`, {
    details: { machine: c.id, issues: result.issues, missingFields: result.missingFields },
  });
}
