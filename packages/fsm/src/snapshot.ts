import { safeParseJson, stringifyJson, validate } from '@parley/core';
import { FsmError } from './errors.js';
import type { CompiledMachine } from './internal/compiled.js';
import type { Deadline, HistoryEntry, MachineSnapshot } from './types.js';

/**
 * Checks a persisted snapshot against a compiled machine: shape, machine id, version (migrating
 * when the machine has a hook), state and context. All or nothing: a refused snapshot is never
 * partly loaded.
 */
export function restoreSnapshot(compiled: CompiledMachine, value: unknown): MachineSnapshot<string, unknown> {
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
  const accepted = compiled.after[index]?.map((t) => t.event) ?? [];
  for (const deadline of snapshot.deadlines) {
    if (!accepted.includes(deadline.event)) {
      throw invalid(compiled, `state "${snapshot.state}" has no timeout "${deadline.event}"`);
    }
  }
  return {
    ...snapshot,
    context,
    done: compiled.final[index] === true,
    deadlines: [...snapshot.deadlines].sort((a, b) => a.at - b.at),
  };
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
  const { machine, version, state, createdAt, updatedAt, deadlines, history } = value;
  if (typeof machine !== 'string') throw invalid(compiled, '"machine" must be a string');
  if (!Number.isInteger(version)) throw invalid(compiled, '"version" must be an integer');
  if (typeof state !== 'string') throw invalid(compiled, '"state" must be a string');
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

function invalid(compiled: CompiledMachine, message: string): FsmError {
  return new FsmError('invalid_snapshot', `Cannot restore machine "${compiled.id}": ${message}`, {
    details: { machine: compiled.id },
  });
}
