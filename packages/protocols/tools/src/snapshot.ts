import { TOOL_FAILURE_STATUSES } from '@parley/core';
import { ToolsError } from './errors.js';
import type { DisabledTool } from './disabled-tool.js';
import { jsonCopy } from './internal/json-copy.js';
import {
  type ExecutedToolCall,
  type FailedToolCall,
  TOOL_REFUSAL_CODES,
  type ToolCallRecord,
} from './types.js';

/**
 * One remembered call of a gate snapshot: its id, its audit record, and what it returned.
 *
 * @example
 * ```ts
 * import type { RememberedCall } from '@parley/tools';
 *
 * const call: RememberedCall = {
 *   id: 'c1',
 *   record: { id: 'c1', turn: 3, requested: { tool: 'ping', args: {} }, outcome: 'executed', replayed: false },
 *   executed: { id: 'c1', tool: 'ping', args: {}, result: 'pong', replayed: false },
 * };
 * ```
 */
export interface RememberedCall {
  readonly id: string;
  /**
   * The call's content as the model proposed it: `canonicalJson({ tool, args })` from
   * `@parley/core` (the reason text left out). A call with this id is replayed only when its
   * content is the same; otherwise it is refused `call_id_reused`. Read from `record.requested`
   * when absent (snapshots written before it existed).
   */
  readonly content?: string | undefined;
  readonly record: ToolCallRecord;
  readonly executed?: ExecutedToolCall | undefined;
  readonly failed?: FailedToolCall | undefined;
}

/**
 * A tool gate's memory as plain JSON: the call ids whose executor ran, with their recorded
 * outcomes, per kept turn, and the disabled tools. From {@link ToolGate.snapshot}; given back to
 * {@link ToolGate.restore} or the `snapshot` option of `createToolGate`.
 *
 * @example
 * ```ts
 * import type { ToolGateSnapshot } from '@parley/tools';
 *
 * const empty: ToolGateSnapshot = { version: 1, turns: [], disabled: [] };
 * ```
 */
export interface ToolGateSnapshot {
  readonly version: 1;
  readonly turns: readonly { readonly turn: number; readonly calls: readonly RememberedCall[] }[];
  readonly disabled: readonly DisabledTool[];
}

/** The part of a snapshot the call memory owns. @internal */
export type GateMemorySnapshot = Pick<ToolGateSnapshot, 'turns'>;

/**
 * Copies a snapshot through JSON and checks its shape; tools must be registered ones. The calls
 * `own` answers true for (frozen copies the gate wrote itself) are kept as they are, unchecked.
 * @internal
 */
export function readSnapshot(
  value: unknown,
  tools: ReadonlySet<string>,
  own: (call: unknown) => boolean = () => false,
): ToolGateSnapshot {
  let copy: unknown;
  try {
    copy = allOwn(value, own) ? shallowCopy(value) : jsonCopy(value, false);
  } catch (cause) {
    throw new ToolsError('invalid_snapshot', 'The snapshot is not plain JSON', { cause });
  }
  const at = (path: string, problem: string): never => {
    throw new ToolsError('invalid_snapshot', `The snapshot is malformed at ${path}: ${problem}`, {
      details: { path },
    });
  };
  const root = object(copy, 'snapshot', at);
  if (root['version'] !== 1) at('version', 'expected 1');
  const seenTurns = new Set<number>();
  list(root['turns'], 'turns', at).forEach((entry, i) => {
    const turn = object(entry, `turns[${i}]`, at);
    if (!Number.isSafeInteger(turn['turn'])) at(`turns[${i}].turn`, 'expected an integer');
    if (seenTurns.has(turn['turn'] as number)) at(`turns[${i}].turn`, 'repeated');
    seenTurns.add(turn['turn'] as number);
    const ids = new Set<string>();
    list(turn['calls'], `turns[${i}].calls`, at).forEach((raw, j) => {
      const path = `turns[${i}].calls[${j}]`;
      const call = object(raw, path, at);
      const id = call['id'];
      if (typeof id !== 'string' || id === '' || ids.has(id)) at(`${path}.id`, 'expected a unique id');
      ids.add(id as string);
      if (!own(raw)) checkCall(call, path, at);
      const record = call['record'] as Record<string, unknown>; // checked by checkCall
      if (record['turn'] !== turn['turn']) at(`${path}.record.turn`, 'is not the turn it is kept under');
    });
  });
  const seenTools = new Set<string>();
  list(root['disabled'], 'disabled', at).forEach((raw, i) => {
    const entry = object(raw, `disabled[${i}]`, at);
    const tool = entry['tool'];
    if (typeof tool !== 'string' || !tools.has(tool) || seenTools.has(tool)) {
      at(`disabled[${i}].tool`, 'expected a registered tool, once');
    }
    seenTools.add(tool as string);
    if (typeof entry['reason'] !== 'string') at(`disabled[${i}].reason`, 'expected text');
    const until = object(entry['until'], `disabled[${i}].until`, at);
    const keys = Object.keys(until);
    const valid =
      keys.length === 1 &&
      (Number.isSafeInteger(until['turn']) || (keys[0] === 'at' && Number.isFinite(until['at'])));
    if (!valid) at(`disabled[${i}].until`, 'expected { turn } or { at }');
  });
  return copy as ToolGateSnapshot; // every part checked above
}

type Fail = (path: string, problem: string) => never;

type Shaped = {
  readonly turns: readonly { readonly calls: readonly unknown[] }[];
  readonly disabled: unknown;
};

/** Whether every remembered call of `value` is one `own` answers true for (and there is one). */
function allOwn(value: unknown, own: (call: unknown) => boolean): value is Shaped {
  if (typeof value !== 'object' || value === null) return false;
  const turns: unknown = Reflect.get(value, 'turns');
  if (!Array.isArray(turns) || turns.length === 0) return false;
  for (const turn of turns) {
    const calls: unknown = typeof turn === 'object' && turn !== null ? Reflect.get(turn, 'calls') : undefined;
    if (!Array.isArray(calls) || !calls.every(own)) return false;
  }
  return true;
}

/** A snapshot whose calls are the gate's own: new lists of the same calls, the rest through JSON. */
function shallowCopy(value: Shaped): unknown {
  const turns = value.turns.map((turn) => ({
    ...(jsonCopy({ ...turn, calls: [] }, false) as object),
    calls: [...turn.calls],
  }));
  return { ...(jsonCopy({ ...value, turns: [] }, false) as object), turns };
}

/**
 * Checks one remembered call read from elsewhere (a store), throwing `invalid_snapshot` when it is
 * malformed. @internal
 */
export function checkRememberedCall(value: unknown, path: string): RememberedCall {
  const at: Fail = (where, problem) => {
    throw new ToolsError('invalid_snapshot', `The record is malformed at ${where}: ${problem}`, {
      details: { path: where },
    });
  };
  const call = object(value, path, at);
  if (typeof call['id'] !== 'string' || call['id'] === '') at(`${path}.id`, 'expected an id');
  checkCall(call, path, at);
  return call as unknown as RememberedCall; // every part checked by checkCall
}

function checkCall(call: Record<string, unknown>, path: string, at: Fail): void {
  const content = call['content'];
  if (content !== undefined && typeof content !== 'string') at(`${path}.content`, 'expected text');
  const record = object(call['record'], `${path}.record`, at);
  if (record['id'] !== call['id']) at(`${path}.record.id`, 'does not match the call id');
  if (!Number.isSafeInteger(record['turn'])) at(`${path}.record.turn`, 'expected an integer');
  const requested = object(record['requested'], `${path}.record.requested`, at);
  if (typeof requested['tool'] !== 'string') at(`${path}.record.requested.tool`, 'expected a tool name');
  if (typeof record['replayed'] !== 'boolean') at(`${path}.record.replayed`, 'expected a boolean');
  const outcome = record['outcome'];
  if (outcome === 'executed') {
    const executed = object(call['executed'], `${path}.executed`, at);
    if (executed['id'] !== call['id'] || typeof executed['tool'] !== 'string') {
      at(`${path}.executed`, 'expected the executed call');
    }
    object(executed['args'], `${path}.executed.args`, at);
    if (call['failed'] !== undefined) at(`${path}.failed`, 'an executed call has no failure');
    return;
  }
  if (!TOOL_FAILURE_STATUSES.includes(outcome as never)) at(`${path}.record.outcome`, 'unknown outcome');
  const failed = object(call['failed'], `${path}.failed`, at);
  if (
    failed['id'] !== call['id'] ||
    typeof failed['tool'] !== 'string' ||
    typeof failed['reason'] !== 'string'
  ) {
    at(`${path}.failed`, 'expected the failed call');
  }
  if (failed['status'] !== outcome) at(`${path}.failed.status`, 'does not match the outcome');
  if (!TOOL_REFUSAL_CODES.includes(failed['code'] as never)) at(`${path}.failed.code`, 'unknown code');
  if (call['executed'] !== undefined) at(`${path}.executed`, 'a failed call has no result');
}

function object(value: unknown, path: string, at: Fail): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return at(path, 'expected an object');
  return value as Record<string, unknown>;
}

function list(value: unknown, path: string, at: Fail): readonly unknown[] {
  if (!Array.isArray(value)) return at(path, 'expected a list');
  return value;
}
