import type { InferInput, InferOutput, StandardSchemaV1 } from '@parley/core';
import { z } from 'zod';
import { type ArtifactSchemas, type ArtifactSet, defineArtifacts } from './artifacts.js';
import { EnvelopeError } from './errors.js';
import { defineIntents, type IntentRegistry, type IntentSpec } from './intents.js';

/**
 * Role names and the report schema for {@link defineAgentIntents}.
 *
 * @example
 * ```ts
 * import type { AgentIntentsOptions } from '@parley/envelope';
 * import { z } from 'zod';
 *
 * const options: AgentIntentsOptions<z.ZodObject<{ thesis: z.ZodString }>> = {
 *   roles: { escalation: 'ceo_coo' },
 *   report: z.object({ thesis: z.string() }),
 * };
 * ```
 */
export interface AgentIntentsOptions<TReport extends StandardSchemaV1 = StandardSchemaV1> {
  readonly roles?: {
    /** Receives `review_request`, sends `review_verdict`; `reviewer` by default. */
    readonly reviewer?: string;
    /** Sends `collect_opinion`; `coordinator` by default. */
    readonly coordinator?: string;
    /** Receives `escalate`; `ceo` by default. */
    readonly escalation?: string;
    /** Receives `notify` (a channel such as Discord); `notifier` by default. */
    readonly notifications?: string;
  };
  /** The payload schema of `deliver_report`; any JSON object by default. */
  readonly report?: TReport;
  /**
   * One schema per artifact a `deliver_report` may carry (instead of `report`): the codec picks it
   * by the payload's `$ref` name or its `artifact` field; see {@link defineArtifacts}.
   */
  readonly reports?: ArtifactSchemas;
  /** The field naming the artifact of an inline report, with `reports`; `artifact` by default. */
  readonly reportField?: string;
}

/**
 * The intent specs of the reference protocol's eight intents, with `deliver_report` carrying
 * `TReport`.
 *
 * @example
 * ```ts
 * import type { AgentIntentSpecs } from '@parley/envelope';
 *
 * type Names = keyof AgentIntentSpecs; // 'assign_task' | 'deliver_report' | …
 * const name: Names = 'escalate';
 * ```
 */
export type AgentIntentSpecs<TReport extends StandardSchemaV1 = DefaultReportSchema> = {
  readonly deliver_report: IntentSpec<TReport>;
} & {
  readonly [K in Exclude<keyof AgentPayloadSchemas, 'deliver_report'>]: IntentSpec<AgentPayloadSchemas[K]>;
};

/**
 * The default `deliver_report` payload schema: any JSON object.
 *
 * @example
 * ```ts
 * import type { DefaultReportSchema } from '@parley/envelope';
 * import type { InferOutput } from '@parley/core';
 *
 * const report: InferOutput<DefaultReportSchema> = { thesis: 'up' };
 * ```
 */
export type DefaultReportSchema = z.ZodRecord<z.ZodString, z.ZodUnknown>;

/**
 * Defines the reference protocol's eight intents, ready to use: `assign_task` and
 * `request_clarification` (parent → child), `deliver_report` (child → parent), `review_request`
 * (→ reviewer), `review_verdict` (reviewer → its parent), `collect_opinion` (coordinator → any),
 * `escalate` (→ ceo) and `notify` (→ notifier channel).
 *
 * Use it as is, or pass your role names and the schema your reports follow; spread its `specs`
 * into {@link defineIntents} to add intents of your own.
 *
 * With `reports` (one schema per artifact), `deliver_report` accepts any of them, chosen per
 * payload by its `$ref` name or `artifact` field, so one codec serves a whole pipeline; a report
 * naming no known artifact is refused with `unknown_artifact`.
 *
 * @throws EnvelopeError `invalid_definition` when a role name is empty, `report` is not a Standard
 * Schema, both `report` and `reports` are given, or `reports` is malformed (see {@link defineArtifacts}).
 * @example
 * ```ts
 * import { createCodec, defineAgentIntents } from '@parley/envelope';
 * import { z } from 'zod';
 *
 * const intents = defineAgentIntents({ report: z.object({ thesis: z.string() }), roles: { escalation: 'ceo_coo' } });
 * const codec = createCodec(intents);
 * const envelope = codec.create('escalate', { from: 'quant_strategist', to: 'ceo_coo', payload: { reason: 'review blocked' } });
 * console.log(intents.names.length, envelope.intent); // 8 escalate
 *
 * // One intent set for every artifact of a pipeline:
 * const pipeline = defineAgentIntents({
 *   reports: {
 *     'Bullish_Brief.json': z.object({ thesis: z.string() }),
 *     'Bearish_Brief.json': z.object({ risk: z.string() }),
 *   },
 * });
 * const artifacts = new Map<string, unknown>([['Bearish_Brief.json', { risk: 'lower high' }]]);
 * const reports = createCodec(pipeline, { resolveRef: (ref) => artifacts.get(ref) });
 * const result = reports.decode(
 *   reports.encode(reports.create('deliver_report', { from: 'bear', to: 'lead', payload: { $ref: 'Bearish_Brief.json' } })),
 * );
 * console.log(result.ok && result.ref, result.ok && result.artifact); // Bearish_Brief.json Bearish_Brief.json
 * ```
 */
export function defineAgentIntents<const TReports extends ArtifactSchemas>(
  options: AgentIntentsOptions<never> & { readonly reports: TReports },
): IntentRegistry<
  AgentIntentSpecs<
    ArtifactSet<
      { [K in keyof TReports]: InferInput<TReports[K]> }[keyof TReports],
      { [K in keyof TReports]: InferOutput<TReports[K]> }[keyof TReports]
    >
  >
>;
export function defineAgentIntents<TReport extends StandardSchemaV1 = DefaultReportSchema>(
  options?: AgentIntentsOptions<TReport> & { readonly reports?: undefined },
): IntentRegistry<AgentIntentSpecs<TReport>>;
export function defineAgentIntents(
  options: AgentIntentsOptions = {},
): IntentRegistry<AgentIntentSpecs<StandardSchemaV1>> {
  const schemas = agentPayloadSchemas();
  const roles = options.roles ?? {};
  if (options.report !== undefined && options.reports !== undefined) {
    throw new EnvelopeError('invalid_definition', 'Give either report or reports, not both');
  }
  const field = options.reportField;
  const report =
    options.reports === undefined
      ? (options.report ?? schemas.deliver_report)
      : defineArtifacts(options.reports, field === undefined ? {} : { field });
  const specs: AgentIntentSpecs<StandardSchemaV1> = {
    assign_task: {
      direction: 'down',
      payload: schemas.assign_task,
      description: 'A parent assigns a task to a child',
    },
    deliver_report: {
      direction: 'up',
      payload: report,
      description: 'A child delivers its finished report to its parent',
    },
    request_clarification: {
      direction: 'down',
      payload: schemas.request_clarification,
      description: 'A parent asks a child (by spawning it again) to complete or clarify its report',
    },
    review_request: {
      direction: { toRole: roles.reviewer ?? 'reviewer' },
      payload: schemas.review_request,
      description: 'Asks a reviewer to review an artifact',
    },
    review_verdict: {
      direction: { fromRole: roles.reviewer ?? 'reviewer', to: 'parent' },
      payload: schemas.review_verdict,
      description: 'A reviewer reports pass, revise or block to the agent that spawned it',
    },
    collect_opinion: {
      direction: { fromRole: roles.coordinator ?? 'coordinator' },
      payload: schemas.collect_opinion,
      description: 'A coordinator collects an opinion',
    },
    escalate: {
      direction: { toRole: roles.escalation ?? 'ceo' },
      payload: schemas.escalate,
      description: 'Reports an exception upward for a decision',
    },
    notify: {
      direction: { toRole: roles.notifications ?? 'notifier' },
      payload: schemas.notify,
      description: 'A one-way notification, not a conversation',
    },
  };
  return defineIntents(specs);
}

/**
 * The zod payload schemas of the ready intent set, by intent name (`deliver_report` is replaced by
 * the `report` option when one is given).
 *
 * @example
 * ```ts
 * import type { AgentPayloadSchemas } from '@parley/envelope';
 * import type { InferOutput } from '@parley/core';
 *
 * const verdict: InferOutput<AgentPayloadSchemas['review_verdict']> = { verdict: 'pass', issues: [], summary: 'ok' };
 * ```
 */
export type AgentPayloadSchemas = ReturnType<typeof agentPayloadSchemas>;

/** Built on call, so importing the package constructs nothing. */
function agentPayloadSchemas() {
  const text = z.string().min(1);
  const object = z.record(z.string(), z.unknown());
  return {
    assign_task: z.object({
      task: text.describe('What to do'),
      output: text.optional().describe('The artifact expected back, e.g. "Market_Structure_Report.json"'),
      context: object.optional().describe('Inputs for the task, inline or as { "$ref": … }'),
    }),
    deliver_report: object,
    request_clarification: z.object({
      previous_report: object.optional().describe('The report being clarified, inline or as { "$ref": … }'),
      missing_fields: z.array(text).describe('Fields to fill in, e.g. "key_levels[].evidence"'),
      question: text,
    }),
    review_request: z.object({
      artifact: text.describe('The artifact name, e.g. "Strategy_Thesis.json"'),
      content: object.optional().describe('The artifact, inline or as { "$ref": … }'),
      criteria: z.array(text).optional(),
    }),
    review_verdict: z.object({
      verdict: z.enum(['pass', 'revise', 'block']),
      score: z.number().optional(),
      issues: z.array(
        z.object({
          severity: z.enum(['critical', 'major', 'minor']),
          field: text,
          description: text,
          suggestion: text.optional(),
        }),
      ),
      revise_target: text.optional().describe('The role to spawn again when the verdict is revise'),
      summary: text,
    }),
    collect_opinion: z.object({ question: text, context: z.string().optional() }),
    escalate: z.object({
      reason: text,
      severity: z.enum(['critical', 'major', 'minor']).optional(),
      details: object.optional(),
    }),
    notify: z.object({ message: text, channel: text.optional() }),
  };
}
