import { toDocumentFeedback } from './checks.js';
import type { AppliedAction } from '../types.js';
import type { ReviewVerdict } from '../verdict.js';
import type { AttemptRecord } from '../records.js';
import type { ConflictReport, ConflictReportReason } from '../report.js';

/** The error's name and message, for records and reports. */
export function errorInfo(error: unknown): { name: string; message: string } {
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

export function buildReport<TInput>(
  reason: ConflictReportReason,
  records: readonly AttemptRecord<TInput>[],
  retries: number,
  maxRetries: number,
  applied: readonly AppliedAction[],
  error: unknown,
  now: number,
): ConflictReport {
  const last = records[records.length - 1]!; // a report follows at least one attempt
  const lastOutput = [...records].reverse().find((record) => 'output' in record);
  const message = error === undefined ? last.error?.message : errorInfo(error).message;
  return {
    reason,
    summary: summarise(reason, retries, maxRetries, last.verdict, message),
    attempts: records.length,
    retries,
    max_retries: maxRetries,
    conflict_debug: last.conflicts,
    ...(last.toolFeedback === undefined ? {} : { tool_feedback: toDocumentFeedback(last.toolFeedback) }),
    ...(last.verdict === undefined ? {} : { review: last.verdict }),
    ...(lastOutput === undefined ? {} : { last_output: lastOutput.output }),
    ...(message === undefined ? {} : { error: message }),
    applied_actions: [...applied],
    history: records.map((record) => ({
      attempt: record.attempt,
      status: record.status,
      conflict_debug: record.conflicts,
      ...(record.toolFeedback === undefined
        ? {}
        : { tool_feedback: toDocumentFeedback(record.toolFeedback) }),
      ...(record.verdict === undefined ? {} : { review: record.verdict }),
    })),
    created_at: now,
  };
}

function summarise(
  reason: ConflictReportReason,
  retries: number,
  maxRetries: number,
  verdict: ReviewVerdict | undefined,
  message: string | undefined,
): string {
  switch (reason) {
    case 'max_retries':
      return `The output still contradicted the authoritative state after ${retries} of ${maxRetries} retries.`;
    case 'retry_disabled':
      return 'The output contradicted the authoritative state, and retry_with_debug is off: no retry was asked for.';
    case 'revise_limit':
      return `The reviewer still asked for a revision after ${retries} of ${maxRetries} revise rounds.`;
    case 'blocked':
      return `The reviewer blocked the output${verdict?.summary === undefined ? '.' : `: ${verdict.summary}`}`;
    case 'invalid_verdict':
      return `The reviewer's verdict was malformed: ${message}`;
    case 'unknown_target':
      return `The reviewer asked to revise "${verdict?.revise_target}", which is not an allowed target.`;
    case 'generator_failed':
      return `The generator failed again after its retry: ${message}`;
    case 'reviewer_failed':
      return `The reviewer failed again after its retry: ${message}`;
  }
}
