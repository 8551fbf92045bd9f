import { safeParseJson, stringifyJson, validate } from '@parley/core';
import { FsmError } from './errors.js';
import type { CompiledMachine } from './internal/compiled.js';
import type { Deadline, HistoryEntry, MachineSnapshot } from './types.js';

/**
 * Checks a persisted snapshot against a compiled machine: shape, machine id, version (migrating
 * when the machine has a hook), state and context. All or nothing: a refused snapshot is never
 * partly loaded.
 */
export function restoreSnapshot(
  compiled: CompiledMachine,
  value: unknown,
  checkHistory = true,
): MachineSnapshot<string, unknown> {
  let snapshot = checkShape(compiled, parse(compiled, value));
  if (snapshot.machine !== compiled.id) {
    throw new FsmError(
      'wrong_machine',
      `The snapshot is of machine "${snapshot.machine}", not "${compiled.id}"`,
      {
        details: { expected: compiled.id, actual: snapshot.machine },
      },
    );
  }
  if (snapshot.version !== compiled.version) snapshot = migrate(compiled, snapshot);
  const index = compiled.index.get(snapshot.state);
  if (index === undefined) {
    throw new FsmError('unknown_state', `Machine "${compiled.id}" has no state "${snapshot.state}"`, {
      details: { machine: compiled.id, state: snapshot.state },
    });
  }
  let context = snapshot.context;
  const schema = compiled.options.contextSchema;
  if (schema !== undefined) {
    const result = validate(schema, context);
    if (!result.ok) {
      throw new FsmError(
        'invalid_context',
        `The snapshot's context does not match machine "${compiled.id}"`,
        {
          details: { machine: compiled.id, issues: result.issues, missingFields: result.missingFields },
        },
      );
    }
    context = result.value;
  }
  const final = compiled.final[index] === true;
  if (snapshot.done !== final) {
    throw invalid(
      compiled,
      `"done" is ${String(snapshot.done)}, but state "${snapshot.state}" is ${final ? '' : 'not '}final`,
      { state: snapshot.state },
    );
  }
  if (checkHistory) checkMachineHistory(compiled, snapshot);
  return { ...snapshot, context, done: final, deadlines: checkDeadlines(compiled, index, snapshot) };
}

/**
 * The history must be a chain of declared transitions ending in the current state. It may start
 * anywhere (it is bounded), and its times are not compared: a system clock can step backwards.
 */
function checkMachineHistory(compiled: CompiledMachine, snapshot: MachineSnapshot<string, unknown>): void {
  const history = snapshot.history;
  history.forEach((entry, k) => {
    const from = compiled.index.get(entry.from);
    const candidates = from === undefined ? undefined : compiled.table.get(entry.event)?.[from];
    if (candidates === undefined || !candidates.some((t) => t.to === entry.to)) {
      throw invalid(
        compiled,
        `history entry ${k} (${entry.from} → ${entry.to} on "${entry.event}") is not a transition of the machine`,
        { entry: k },
      );
    }
    const next = history[k + 1]?.from ?? snapshot.state;
    if (entry.to !== next) {
      throw invalid(
        compiled,
        `history entry ${k} ends in "${entry.to}", but ${k + 1 < history.length ? `entry ${k + 1} starts` : 'the snapshot is'} in "${next}"`,
        { entry: k, state: snapshot.state },
      );
    }
  });
}

/**
 * The deadlines must be what entering the state at one time `E` set, minus those already spent:
 * the state's timeouts, the longest ones left (timeouts are spent earliest first), all at `E + ms`,
 * with `E` no later than the last update (a deadline cannot be pushed further away) and equal to
 * the time the history shows the state was entered, when it shows it. A spent timeout must have
 * fallen due by the last update. Returns the deadlines earliest first.
 */
function checkDeadlines(
  compiled: CompiledMachine,
  index: number,
  snapshot: MachineSnapshot<string, unknown>,
): Deadline[] {
  const timeouts = compiled.after[index] ?? [];
  const deadlines = [...snapshot.deadlines].sort((a, b) => a.at - b.at);
  const state = snapshot.state;
  const fail = (message: string): FsmError => invalid(compiled, message, { state });
  if (deadlines.length === 0 && timeouts.length === 0) return deadlines;
  const left = timeouts.slice(timeouts.length - deadlines.length);
  if (deadlines.length > timeouts.length) {
    const extra = deadlines.find((d) => !timeouts.some((t) => t.event === d.event)) ?? deadlines[0];
    throw fail(`state "${state}" has no timeout "${(extra as Deadline).event}"`);
  }
  const entered = entryTime(compiled, snapshot);
  let at = entered ?? snapshot.createdAt;
  if (deadlines.length > 0) {
    at = (deadlines[0] as Deadline).at - (left[0] as { ms: number }).ms;
    deadlines.forEach((deadline, k) => {
      const timeout = left[k] as { ms: number; event: string };
      if (deadline.event !== timeout.event || deadline.at !== at + timeout.ms) {
        throw fail(
          `the deadline of "${deadline.event}" at ${deadline.at} is not one state "${state}" set (its timeouts left are ${left.map((t) => `${t.event} after ${t.ms} ms`).join(', ')})`,
        );
      }
    });
    if (at > snapshot.updatedAt || (entered !== undefined && at !== entered)) {
      throw fail(`the deadlines of state "${state}" do not match when it was entered`);
    }
  }
  const spent = timeouts.slice(0, timeouts.length - deadlines.length);
  const last = spent[spent.length - 1];
  if (last !== undefined && at + last.ms > snapshot.updatedAt) {
    throw fail(`the timeout "${last.event}" of state "${state}" is missing but was not yet due`);
  }
  return deadlines;
}

/** When the current state was entered, if the history shows it (internal transitions do not re-enter). */
function entryTime(
  compiled: CompiledMachine,
  snapshot: MachineSnapshot<string, unknown>,
): number | undefined {
  for (let k = snapshot.history.length - 1; k >= 0; k--) {
    const entry = snapshot.history[k] as HistoryEntry;
    const from = compiled.index.get(entry.from) as number; // checked by checkMachineHistory
    const candidates = compiled.table.get(entry.event)?.[from] ?? [];
    if (candidates.some((t) => t.to === entry.to && !t.internal)) return entry.at;
  }
  return undefined;
}

function parse(compiled: CompiledMachine, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const parsed = safeParseJson(value);
  if (!parsed.ok) throw invalid(compiled, `the text is not JSON (${parsed.message})`);
  return parsed.value;
}

function migrate(
  compiled: CompiledMachine,
  snapshot: MachineSnapshot<string, unknown>,
): MachineSnapshot<string, unknown> {
  const hook = compiled.options.migrate;
  const details = { machine: compiled.id, expected: compiled.version, actual: snapshot.version };
  if (hook === undefined) {
    throw new FsmError(
      'version_mismatch',
      `The snapshot is of version ${snapshot.version}; machine "${compiled.id}" is version ${compiled.version} and has no migrate hook`,
      { details },
    );
  }
  let migrated: MachineSnapshot<string, unknown>;
  try {
    migrated = checkShape(compiled, hook(snapshot));
  } catch (error) {
    throw new FsmError('migration_failed', `Migrating a version ${snapshot.version} snapshot failed`, {
      details,
      cause: error,
    });
  }
  if (migrated.version !== compiled.version || migrated.machine !== compiled.id) {
    throw new FsmError(
      'migration_failed',
      `The migrate hook returned version ${migrated.version}, not ${compiled.version}`,
      {
        details: { ...details, returned: migrated.version },
      },
    );
  }
  return migrated;
}

function checkShape(compiled: CompiledMachine, value: unknown): MachineSnapshot<string, unknown> {
  if (!isRecord(value)) throw invalid(compiled, 'a snapshot must be an object');
  const { machine, version, state, done, createdAt, updatedAt, deadlines, history } = value;
  if (typeof machine !== 'string') throw invalid(compiled, '"machine" must be a string');
  if (!Number.isInteger(version)) throw invalid(compiled, '"version" must be an integer');
  if (typeof state !== 'string') throw invalid(compiled, '"state" must be a string');
  if (typeof done !== 'boolean') throw invalid(compiled, '"done" must be a boolean');
  if (!Number.isFinite(createdAt) || !Number.isFinite(updatedAt)) {
    throw invalid(compiled, '"createdAt" and "updatedAt" must be epoch ms');
  }
  if (!Object.hasOwn(value, 'context')) throw invalid(compiled, '"context" is missing');
  if (!Array.isArray(deadlines) || !deadlines.every(isDeadline)) {
    throw invalid(compiled, '"deadlines" must be a list of { at, event }');
  }
  if (!Array.isArray(history) || !history.every(isHistoryEntry)) {
    throw invalid(compiled, '"history" must be a list of { from, to, event, at }');
  }
  try {
    stringifyJson(value.context);
  } catch (error) {
    throw new FsmError('invalid_snapshot', "The snapshot's context is not plain JSON", {
      details: { machine: compiled.id },
      cause: error,
    });
  }
  return value as unknown as MachineSnapshot<string, unknown>; // every field checked above
}

function isDeadline(value: unknown): value is Deadline {
  return isRecord(value) && Number.isFinite(value.at) && typeof value.event === 'string';
}

function isHistoryEntry(value: unknown): value is HistoryEntry {
  return (
    isRecord(value) &&
    typeof value.from === 'string' &&
    typeof value.to === 'string' &&
    typeof value.event === 'string' &&
    Number.isFinite(value.at)
  );
}

/** @internal */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(
  compiled: CompiledMachine,
  message: string,
  details: Readonly<Record<string, unknown>> = {},
): FsmError {
  return new FsmError('invalid_snapshot', `Cannot restore machine "${compiled.id}": ${message}`, {
    details: { machine: compiled.id, ...details },
  });
}
