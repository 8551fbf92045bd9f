import type { StandardSchemaV1 } from '@parley/core';
import { z } from 'zod';
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
 * @throws EnvelopeError `invalid_definition` when a role name is empty or `report` is not a Standard Schema.
 * @example
 * ```ts
 * import { createCodec, defineAgentIntents } from '@parley/envelope';
 * import { z } from 'zod';
 *
 * const intents = defineAgentIntents({ report: z.object({ thesis: z.string() }), roles: { escalation: 'ceo_coo' } });
 * const codec = createCodec(intents);
 * const envelope = codec.create('escalate', { from: 'quant_strategist', to: 'ceo_coo', payload: { reason: 'review blocked' } });
 * console.log(intents.names.length, envelope.intent); // 8 escalate
 * ```
 */
export function defineAgentIntents<TReport extends StandardSchemaV1 = DefaultReportSchema>(
  options: AgentIntentsOptions<TReport> = {},
): IntentRegistry<AgentIntentSpecs<TReport>> {
  const schemas = agentPayloadSchemas();
  const roles = options.roles ?? {};
  const specs: AgentIntentSpecs<TReport> = {
    assign_task: {
      direction: 'down',
      payload: schemas.assign_task,
      description: 'A parent assigns a task to a child',
    },
    deliver_report: {
      direction: 'up',
      // Without a report schema, TReport is its default, the generic object schema.
      payload: options.report ?? (schemas.deliver_report as unknown as TReport),
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
