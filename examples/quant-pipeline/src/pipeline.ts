// The pipeline of §4.4 ("Lobster DSL") as data, and the zod schema that checks it: known
// artifacts, dependencies that exist and form a DAG, and the small expression forms the document
// uses (`retry(converge, max=3)`, `escalate(ceo_coo)`, `review.verdict == "pass"`, `cron "…"`).
import { validate } from '@parley/core';
import { z } from 'zod';
import { isArtifactName } from './artifacts.js';
import { type CronSchedule, parseCron } from './cron.js';

/** The pipeline exactly as the document writes it (YAML turned into a JS object). */
export const DAILY_QUANT_PIPELINE = {
  name: 'daily_quant_pipeline',
  trigger: 'cron "30 7 * * 1-5"',
  owner: 'quant_strategist',
  steps: [
    { id: 'intel', agent: 'finance_researcher', action: 'spawn', output: 'Finance_Research_Brief.json' },
    {
      id: 'structure',
      agent: 'market_structure_researcher',
      action: 'spawn',
      depends_on: ['intel'],
      output: 'Market_Structure_Report.json',
    },
    {
      id: 'bull',
      agent: 'bullish_researcher',
      action: 'spawn',
      depends_on: ['structure'],
      output: 'Bullish_Brief.json',
    },
    {
      id: 'bear',
      agent: 'bearish_researcher',
      action: 'spawn',
      depends_on: ['structure'],
      output: 'Bearish_Brief.json',
    },
    {
      id: 'converge',
      agent: 'quant_strategist',
      action: 'self',
      depends_on: ['bull', 'bear'],
      output: 'Strategy_Thesis.json',
    },
    {
      id: 'review',
      agent: 'reviewer',
      action: 'spawn',
      depends_on: ['converge'],
      output: 'Review_Report.json',
      on_revise: 'retry(converge, max=3)',
      on_block: 'escalate(ceo_coo)',
    },
    {
      id: 'data_analysis',
      agent: 'data_analyst',
      action: 'spawn',
      depends_on: ['review'],
      condition: 'review.verdict == "pass"',
      output: 'Data_Analysis_Report.json',
    },
    { id: 'approve', type: 'hitl', channel: '#approvals', depends_on: ['data_analysis'] },
  ],
} as const;

const name = z.string().regex(/^[a-z][a-z0-9_]*$/, 'a snake_case name');

const RETRY = /^retry\(\s*([a-z][a-z0-9_]*)\s*,\s*max\s*=\s*(\d+)\s*\)$/;
const ESCALATE = /^escalate\(\s*([a-z][a-z0-9_]*)\s*\)$/;
const CONDITION = /^([a-z][a-z0-9_]*)\.([a-z][a-z0-9_]*)\s*(==|!=)\s*"([^"]*)"$/;
const TRIGGER = /^cron\s+"([^"]+)"$/;

const OnRevise = z.string().transform((value, ctx) => {
  const match = RETRY.exec(value);
  if (match === null) {
    ctx.addIssue({ code: 'custom', message: 'expected retry(<step>, max=<n>)' });
    return z.NEVER;
  }
  return { step: match[1] as string, max: Number(match[2]) };
});

const OnBlock = z.string().transform((value, ctx) => {
  const match = ESCALATE.exec(value);
  if (match === null) {
    ctx.addIssue({ code: 'custom', message: 'expected escalate(<role>)' });
    return z.NEVER;
  }
  return { escalateTo: match[1] as string };
});

const Condition = z.string().transform((value, ctx) => {
  const match = CONDITION.exec(value);
  if (match === null) {
    ctx.addIssue({ code: 'custom', message: 'expected <step>.<field> == "<value>" (or !=)' });
    return z.NEVER;
  }
  const [, step, field, op, literal] = match as unknown as [string, string, string, '==' | '!=', string];
  return { source: value, step, field, op, value: literal };
});

const Trigger = z
  .string()
  .transform((value, ctx): { readonly source: string; readonly cron: CronSchedule } => {
    const match = TRIGGER.exec(value);
    const cron = match === null ? undefined : parseCron(match[1] as string);
    if (cron === undefined || !cron.ok) {
      ctx.addIssue({
        code: 'custom',
        message: cron === undefined ? 'expected cron "<5 fields>"' : cron.message,
      });
      return z.NEVER;
    }
    return { source: value, cron: cron.value };
  });

const AgentStep = z.strictObject({
  id: name,
  type: z.undefined().optional(), // no `type`: an agent step (the discriminator of the union below)
  agent: name,
  action: z.enum(['spawn', 'self']),
  output: z.string().refine(isArtifactName, 'not an artifact the example has a schema for'),
  depends_on: z.array(name).default([]),
  condition: Condition.optional(),
  on_revise: OnRevise.optional(),
  on_block: OnBlock.optional(),
});

const HitlStep = z.strictObject({
  id: name,
  type: z.literal('hitl'),
  channel: z.string().regex(/^#[a-z0-9_-]+$/, 'a channel such as "#approvals"'),
  depends_on: z.array(name).default([]),
  condition: Condition.optional(),
});

/** The schema of a pipeline definition; its output has the expressions parsed. */
export const PipelineSchema = z
  .strictObject({
    name,
    trigger: Trigger,
    owner: name,
    steps: z.array(z.discriminatedUnion('type', [AgentStep, HitlStep])).min(1),
  })
  .superRefine((pipeline, ctx) => {
    const ids = pipeline.steps.map((step) => step.id);
    pipeline.steps.forEach((step, index) => {
      const at = (...path: (string | number)[]): (string | number)[] => ['steps', index, ...path];
      if (ids.indexOf(step.id) !== index)
        ctx.addIssue({ code: 'custom', path: at('id'), message: 'duplicate step id' });
      step.depends_on.forEach((dep, i) => {
        if (!ids.includes(dep))
          ctx.addIssue({ code: 'custom', path: at('depends_on', i), message: `no step "${dep}"` });
      });
      if (step.condition !== undefined && !ancestors(pipeline.steps, step.id).has(step.condition.step)) {
        ctx.addIssue({
          code: 'custom',
          path: at('condition'),
          message: 'a condition reads a step this one depends on',
        });
      }
      if (
        'on_revise' in step &&
        step.on_revise !== undefined &&
        !step.depends_on.includes(step.on_revise.step)
      ) {
        ctx.addIssue({
          code: 'custom',
          path: at('on_revise'),
          message: 'on_revise retries a step this one depends on',
        });
      }
    });
    const cycle = findCycle(pipeline.steps);
    if (cycle !== undefined)
      ctx.addIssue({ code: 'custom', path: ['steps'], message: `cycle: ${cycle.join(' → ')}` });
  });

export type Pipeline = z.output<typeof PipelineSchema>;
export type PipelineStep = Pipeline['steps'][number];
export type AgentPipelineStep = Extract<PipelineStep, { readonly agent: string }>;
export type HitlPipelineStep = Extract<PipelineStep, { readonly type: 'hitl' }>;

/** The result of {@link parsePipeline}: the checked pipeline, or every issue with its path. */
export type ParsePipelineResult =
  | { readonly ok: true; readonly value: Pipeline }
  | { readonly ok: false; readonly issues: readonly string[] };

/** Checks a pipeline definition (from YAML, JSON or code) and parses its expressions. */
export function parsePipeline(data: unknown): ParsePipelineResult {
  const result = validate(PipelineSchema, data);
  if (result.ok) return { ok: true, value: result.value };
  return {
    ok: false,
    issues: result.issues.map((issue) => `${issue.pathText || '(root)'}: ${issue.message}`),
  };
}

/** Tells whether a step is the human-in-the-loop kind. */
export function isHitlStep(step: PipelineStep): step is HitlPipelineStep {
  return step.type === 'hitl';
}

/** Every step `id` depends on, directly or not. */
function ancestors(steps: readonly { id: string; depends_on: readonly string[] }[], id: string): Set<string> {
  const byId = new Map(steps.map((step) => [step.id, step]));
  const seen = new Set<string>();
  const visit = (current: string): void => {
    for (const dep of byId.get(current)?.depends_on ?? []) {
      if (seen.has(dep)) continue;
      seen.add(dep);
      visit(dep);
    }
  };
  visit(id);
  return seen;
}

/** A dependency cycle as the list of step ids, or undefined when the graph is a DAG. */
function findCycle(steps: readonly { id: string; depends_on: readonly string[] }[]): string[] | undefined {
  const byId = new Map(steps.map((step) => [step.id, step]));
  const state = new Map<string, 'visiting' | 'done'>();
  const path: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === 'done') return undefined;
    if (state.get(id) === 'visiting') return [...path.slice(path.indexOf(id)), id];
    state.set(id, 'visiting');
    path.push(id);
    for (const dep of byId.get(id)?.depends_on ?? []) {
      const cycle = visit(dep);
      if (cycle !== undefined) return cycle;
    }
    path.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const step of steps) {
    const cycle = visit(step.id);
    if (cycle !== undefined) return cycle;
  }
  return undefined;
}
