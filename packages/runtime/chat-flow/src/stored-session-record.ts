import { type JsonValue, type StandardSchemaV1, validate } from '@parley/core';
import { type Flow, type FlowSnapshot, FsmError } from '@parley/fsm';
import { isRecord } from './internal/record.js';

/**
 * The format number of a stored flow session record (the version of its durable-kernel record of
 * kind `parley.fsm.session`); a record of another format is refused as `foreign_version`.
 *
 * @example
 * ```ts
 * import { FLOW_SESSION_RECORD_FORMAT } from '@parley/chat-flow';
 *
 * console.log(FLOW_SESSION_RECORD_FORMAT); // 5
 * ```
 */
export const FLOW_SESSION_RECORD_FORMAT = 5;

/**
 * @internal The formats before 5 still read (4: the snapshot under `flow`, its history as flat
 * triples, its times as numbers; 3: the snapshot without what a new run has; 2: the whole snapshot),
 * each written back as 5 by its next write.
 */
export const FORMER_SESSION_RECORD_FORMATS: readonly number[] = [4, 3, 2];

/** @internal The kind of a stored flow session's kernel record. */
export const FLOW_SESSION_KIND = 'parley.fsm.session';

/**
 * The answers of a slot-filling step kept after a failed submission, merged into the next one.
 *
 * @example
 * ```ts
 * import type { FlowDraft } from '@parley/chat-flow';
 *
 * const draft: FlowDraft<'goal'> = { step: 'goal', part: 0, fields: { goal_type: 'delete' } };
 * ```
 */
export interface FlowDraft<TStep extends string = string> {
  readonly step: TStep;
  readonly part: number;
  readonly fields: { readonly [field: string]: JsonValue };
}

/**
 * A retry of a step's effect waiting in the store: the attempts made and the absolute time of the
 * next one (epoch ms). A resumed session waits until `dueAt`, whatever happened to the timers.
 *
 * @example
 * ```ts
 * import type { FlowRetry } from '@parley/chat-flow';
 *
 * const retry: FlowRetry<'close'> = { step: 'close', attempts: 1, dueAt: 1_700_000_001_000 };
 * ```
 */
export interface FlowRetry<TStep extends string = string> {
  readonly step: TStep;
  readonly attempts: number;
  readonly dueAt: number;
}

/**
 * A stored flow session's record: the flow snapshot, the draft, the host's data, a pending effect
 * retry and the absolute expiry. Plain JSON; the store holds it inside a durable-kernel record of
 * kind `parley.fsm.session`, format {@link FLOW_SESSION_RECORD_FORMAT}.
 *
 * @example
 * ```ts
 * import type { FlowSessionRecord } from '@parley/chat-flow';
 *
 * const stateOf = (record: FlowSessionRecord) => (record.flow.mark === 'close_pending' ? 'close_pending' : record.flow.state);
 * ```
 */
export interface FlowSessionRecord<TStep extends string = string, TContext = unknown, TData = JsonValue> {
  readonly kind: 'parley.fsm.session';
  readonly format: typeof FLOW_SESSION_RECORD_FORMAT;
  readonly id: string;
  readonly flow: FlowSnapshot<TStep, TContext>;
  readonly draft: FlowDraft<TStep> | null;
  readonly data: TData;
  readonly retry: FlowRetry<TStep> | null;
  /** Absolute expiry (epoch ms) after `idleTimeoutMs` without a write, or `null` for none. */
  readonly expiresAt: number | null;
  readonly savedAt: number;
}

/** @internal Why a stored value is not a record this flow can resume. */
export type RecordProblem = { readonly code: 'corrupt_record' | 'foreign_version'; readonly reason: string };

/**
 * @internal Checks the data of a stored session record as a record of `flow` (pure): the flow
 * snapshot (through `flow.restore`), the draft and retry against the current step, the data. The
 * kernel has checked the record's kind and format before.
 */
export function readSessionRecord<TStep extends string, TContext, TData>(
  flow: Flow<TStep, TContext>,
  id: string,
  fields: Readonly<Record<string, unknown>>,
  dataSchema: StandardSchemaV1 | undefined,
): { readonly ok: true; readonly record: FlowSessionRecord<TStep, TContext, TData> } | RecordProblem {
  const corrupt = (reason: string): RecordProblem => ({ code: 'corrupt_record', reason });
  const value: Record<string, unknown> = {
    ...fields,
    kind: FLOW_SESSION_KIND,
    format: FLOW_SESSION_RECORD_FORMAT,
  };
  if (value.id !== id) return corrupt(`the record is of session "${String(value.id)}"`);
  const { draft, retry, expiresAt, savedAt } = value;
  if (!Number.isFinite(savedAt)) return corrupt('"savedAt" must be a time');
  if (expiresAt !== null && !Number.isFinite(expiresAt)) return corrupt('"expiresAt" must be a time or null');
  let flowSnapshot: FlowSnapshot<TStep, TContext>;
  try {
    flowSnapshot = flow.restore(value.flow);
  } catch (error) {
    const code = error instanceof FsmError ? error.code : 'invalid_snapshot';
    const foreign = code === 'wrong_machine' || code === 'version_mismatch';
    const reason = `the flow snapshot is refused (${code}): ${(error as Error).message}`;
    return foreign ? { code: 'foreign_version', reason } : corrupt(reason);
  }
  const here = (item: Record<string, unknown>): boolean => item.step === flowSnapshot.state;
  if (
    draft !== null &&
    !(isRecord(draft) && here(draft) && draft.part === flowSnapshot.part && isRecord(draft.fields))
  ) {
    return corrupt('the draft is not one of the current step and part');
  }
  if (
    retry !== null &&
    !(isRecord(retry) && here(retry) && Number.isInteger(retry.attempts) && Number.isFinite(retry.dueAt))
  ) {
    return corrupt('the retry is not one of the current step');
  }
  if (dataSchema !== undefined) {
    const checked = validate(dataSchema, value.data);
    if (!checked.ok) return corrupt(`the data fails its schema: ${checked.issues[0]?.message ?? ''}`);
  }
  // every part was checked above; the data by its schema when the store has one
  return {
    ok: true,
    record: { ...value, flow: flowSnapshot } as unknown as FlowSessionRecord<TStep, TContext, TData>,
  };
}

/** @internal The draft of a record's current step and part, or `null`. */
export function draftIn<TStep extends string>(record: {
  readonly draft: FlowDraft<TStep> | null;
  readonly flow: FlowSnapshot<TStep, unknown>;
}): FlowDraft<TStep> | null {
  const { draft, flow } = record;
  return draft !== null && draft.step === flow.state && draft.part === flow.part ? draft : null;
}

/** The fields of a step, as a draft keeps them. */
type Fields = { readonly [field: string]: JsonValue };

/** @internal `fields` merged into `draft`: lists joined without duplicates, other fields replaced. */
export function mergeDraft(draft: FlowDraft | null, fields: Fields): Fields {
  const out: Record<string, JsonValue> = { ...draft?.fields };
  for (const [name, value] of Object.entries(fields)) {
    const before = out[name];
    out[name] = Array.isArray(before) && Array.isArray(value) ? [...new Set([...before, ...value])] : value;
  }
  return out;
}
