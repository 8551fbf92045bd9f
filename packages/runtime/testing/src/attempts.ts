import type { AppliedAction, AttemptRecord, ConflictOutcome, ToolCall } from '@parley/conflict';
import { brief } from './transcript.js';

/**
 * Options of {@link describeAttempts}.
 *
 * @example
 * ```ts
 * import type { DescribeAttemptsOptions } from '@parley/testing';
 *
 * const options: DescribeAttemptsOptions = { author: 'GM', maxRetries: 2, formatCall: (call) => call.tool };
 * ```
 */
export interface DescribeAttemptsOptions {
  /** Who wrote the drafts: `GM` gives `GM draft 1: …`; `draft` by default. */
  readonly author?: string;
  /** K, for `(retry 1 of 2)` and `no retries left (K = 2)`; the report's `max_retries` when it has one. */
  readonly maxRetries?: number;
  /** One proposed call; `tool({"args":…})` by default. */
  readonly formatCall?: (call: ToolCall) => string;
  /** One executed call; `tool id → result` by default. */
  readonly formatApplied?: (action: AppliedAction) => string;
  /** Put before every line; three spaces by default (nested lines get two more). */
  readonly indent?: string;
}

/**
 * Tells what a conflict loop did, one line each, for a transcript: every draft with its tool calls,
 * the conflicts (`✗ conflict [detector] …`), refused calls with the gate's code and `disabled_until`,
 * executed calls (`✓`), calls recognised as already run (`=`), the feedback appended for the retry
 * (`↻`), and the `conflict_report` when the loop gave up.
 *
 * Use it in examples and tests of a host on `@parley/conflict` instead of formatting attempt records
 * by hand; pass `formatCall` / `formatApplied` to show the domain's calls in its own words.
 *
 * @example
 * ```ts
 * import { createConflictLoop, defineDetector } from '@parley/conflict';
 * import { describeAttempts } from '@parley/testing';
 *
 * const loop = createConflictLoop({
 *   maxRetries: 1,
 *   detectors: [
 *     defineDetector({
 *       name: 'no_shouting',
 *       detect: (p) => (p.text === p.text.toUpperCase() ? { expected_state_snippet: {}, mismatch_reason: 'all capitals', instructions: 'calm down' } : undefined),
 *     }),
 *   ],
 * });
 * const drafts = ['HELLO', 'Hello'];
 * const outcome = await loop.run({ input: 'greet', readState: () => ({}), generate: () => ({ text: drafts.shift() ?? '' }) });
 * console.log(describeAttempts(outcome, { author: 'bot', maxRetries: 1 }));
 * // [ '   bot draft 1: "HELLO"', '     ✗ conflict [no_shouting] all capitals',
 * //   '     ↻ conflict_debug appended to the previous request (retry 1 of 1)', '   bot draft 2: "Hello"' ]
 * ```
 */
export function describeAttempts(
  outcome: ConflictOutcome<unknown, unknown>,
  options: DescribeAttemptsOptions = {},
): string[] {
  const pad = options.indent ?? '   ';
  const inner = `${pad}  `;
  const maxRetries = outcome.ok ? options.maxRetries : (options.maxRetries ?? outcome.report.max_retries);
  const formatCall = options.formatCall ?? ((call: ToolCall) => `${call.tool}(${brief(call.args ?? {})})`);
  const formatApplied =
    options.formatApplied ??
    ((action: AppliedAction) => `${action.tool} ${action.id} → ${brief(action.result)}`);
  const lines: string[] = [];
  for (const record of outcome.attempts) {
    lines.push(
      `${pad}${draftLine(record, options.author === undefined ? 'draft' : `${options.author} draft`, formatCall)}`,
    );
    for (const conflict of record.conflicts)
      lines.push(`${inner}✗ conflict [${conflict.detector}] ${conflict.mismatch_reason}`);
    for (const failed of record.toolFeedback?.failed_calls ?? []) {
      const until = failed.disabled_until === undefined ? '' : ` (disabled_until: ${failed.disabled_until})`;
      const code = failed.code ?? failed.status;
      lines.push(`${inner}✗ refused ${failed.tool} ${failed.id} [${code}]: ${failed.reason}${until}`);
    }
    for (const action of record.executed) lines.push(`${inner}✓ ${formatApplied(action)}`);
    for (const again of record.recognised)
      lines.push(
        `${inner}= ${again.tool} ${again.id} is ${again.as}, already ${again.status}: not run again`,
      );
    if (record.status !== 'conflict' && record.status !== 'tool_rejected') continue;
    const what = record.status === 'conflict' ? 'conflict_debug' : 'tool_feedback';
    const of = maxRetries === undefined ? '' : ` of ${maxRetries}`;
    lines.push(
      record.attempt === outcome.attempts.length && !outcome.ok
        ? `${inner}⨯ no retries left (K = ${maxRetries})`
        : `${inner}↻ ${what} appended to the previous request (retry ${record.attempt}${of})`,
    );
  }
  if (!outcome.ok) {
    const { report } = outcome;
    lines.push(
      `${pad}⚠ conflict_report (${report.reason}) after ${report.attempts} attempts: ${report.summary}`,
    );
  }
  return lines;
}

function draftLine(
  record: AttemptRecord<unknown>,
  label: string,
  formatCall: (call: ToolCall) => string,
): string {
  // The output as the model sent it: a proposal, or whatever a faulty model returned.
  const output = record.output as
    | { readonly text?: unknown; readonly tool_calls?: readonly ToolCall[]; readonly structured?: unknown }
    | undefined;
  const calls = (output?.tool_calls ?? []).map(formatCall);
  const structured =
    output?.structured === undefined ? '' : ` + structured ${JSON.stringify(output.structured)}`;
  return `${label} ${record.attempt}: "${String(output?.text ?? '')}"${calls.length === 0 ? '' : ` + ${calls.join(', ')}`}${structured}`;
}
