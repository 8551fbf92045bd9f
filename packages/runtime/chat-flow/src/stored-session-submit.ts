// One submission to a stored session as a pure change of its record: the flow's verdict, the draft
// kept, the retry scheduled and the host data, decided on the committed record.
import type { JsonValue } from '@parley/core';
import type { Flow, FlowSubmitResult } from '@parley/fsm';
import { isRecord } from './internal/record.js';
import type { FlowDraft, FlowRetry, FlowSessionRecord } from './stored-session-record.js';
import { draftIn, mergeDraft } from './stored-session-record.js';
import type { HandleSettings } from './stored-session-state.js';
import type { SessionParts } from './stored-session-steps.js';

type Fields = { readonly [field: string]: JsonValue };

/** @internal What a submission may carry besides the fields. */
export type SubmitOptions<TStep extends string, TContext, TData> = {
  readonly data?: TData | ((result: FlowSubmitResult<TStep, TContext>) => TData);
  readonly transient?: Fields;
  readonly release?: boolean;
};

/** @internal The record after a submission, the flow's verdict, and whether a retry was scheduled. */
export interface SubmitChange<TStep extends string, TContext, TData> {
  readonly next: SessionParts<TStep, TContext, TData>;
  readonly out: FlowSubmitResult<TStep, TContext>;
  readonly schedule: boolean;
}

/**
 * @internal Submits `fields` to `record`'s flow at `at`: a refused answer on a draft step is kept as
 * its draft; `retryAfterMs` undefined keeps a stored retry of this step, null clears it, a delay
 * schedules the next.
 */
export function submitChange<TStep extends string, TContext, TData>(
  flow: Flow<TStep, TContext>,
  settings: HandleSettings<TStep, TContext, TData>,
  record: FlowSessionRecord<TStep, TContext, TData>,
  at: number,
  fields: unknown,
  options: SubmitOptions<TStep, TContext, TData>,
  retryAfterMs: number | null | undefined,
): SubmitChange<TStep, TContext, TData> {
  const { draftSteps, historyLimit } = settings;
  const before = record.flow;
  // without a draft the answer is the caller's own object (the flow copies what it keeps; so does a draft)
  const draftNow = draftIn(record);
  const answer = isRecord(fields) && draftNow !== null ? mergeDraft(draftNow, fields as Fields) : fields;
  const submission =
    isRecord(answer) && options.transient !== undefined ? { ...answer, ...options.transient } : answer;
  const result = flow.submit(before, submission, historyLimit === undefined ? { at } : { at, historyLimit });
  const after = result.snapshot;
  const stayed = after.state === before.state && after.part === before.part;
  const keep = stayed && !result.ok && isRecord(answer) && draftSteps.includes(before.state as TStep);
  const draft: FlowDraft<TStep> | null = keep
    ? { step: before.state as TStep, part: before.part, fields: { ...(answer as Fields) } }
    : null;
  let retry: FlowRetry<TStep> | null = stayed && retryAfterMs !== null ? record.retry : null;
  const schedule = typeof retryAfterMs === 'number' && stayed && !result.ok && result.code !== 'flow_done';
  if (schedule) {
    retry = {
      step: before.state as TStep,
      attempts: (retry?.attempts ?? 0) + 1,
      dueAt: at + (retryAfterMs as number), // a number when scheduling
    };
  }
  const given = options.data;
  // host data is plain JSON, never a function: a function is the verdict-dependent form
  const data =
    given === undefined
      ? record.data
      : typeof given === 'function'
        ? (given as (verdict: FlowSubmitResult<TStep, TContext>) => TData)(result)
        : given;
  return { next: { flow: after, draft, data, retry }, out: result, schedule };
}
