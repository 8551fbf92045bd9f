import { isParleyError } from '@parley/core';
import { definePipeline } from './define.js';
import type { NodeCondition, PipelineDefinition, PipelineNode } from './types.js';

/**
 * The result of {@link parsePipeline}: the checked definition, or every issue with its path.
 *
 * @example
 * ```ts
 * import type { ParsePipelineResult } from '@parley/pipeline';
 *
 * const refused: ParsePipelineResult = { ok: false, issues: ['steps[0].agent: expected text'] };
 * ```
 */
export type ParsePipelineResult =
  | { readonly ok: true; readonly value: PipelineDefinition }
  | { readonly ok: false; readonly issues: readonly string[] };

const RETRY = /^retry\(\s*([\w-]+)\s*,\s*max\s*=\s*(\d+)\s*\)$/;
const ESCALATE = /^escalate\(\s*([\w-]+)\s*\)$/;
const CONDITION = /^([\w-]+)\.([\w-]+)\s*(==|!=)\s*"([^"]*)"$/;
const TRIGGER = /^cron\s+"([^"]+)"$/;
const STEP_KEYS = [
  'id',
  'type',
  'agent',
  'action',
  'output',
  'depends_on',
  'condition',
  'on_revise',
  'on_block',
  'channel',
  'timeout_ms',
];

/**
 * Reads a pipeline written in the reference document's DSL (the YAML, decoded to plain data by the
 * host): `steps` with `id`, `agent`, `action`, `output`, `depends_on`, `condition: review.verdict ==
 * "pass"`, `on_revise: retry(converge, max=3)`, `on_block: escalate(ceo_coo)`, `type: hitl` with
 * `channel`, and `trigger: cron "30 7 * * 1-5"`. A step with `on_revise` or `on_block` is a review.
 *
 * Use it for definitions that come from a file; code uses {@link definePipeline} directly. Never
 * throws: untrusted input comes back as issues.
 *
 * @example
 * ```ts
 * import { parsePipeline } from '@parley/pipeline';
 *
 * const result = parsePipeline({
 *   name: 'daily_quant_pipeline',
 *   trigger: 'cron "30 7 * * 1-5"',
 *   owner: 'quant_strategist',
 *   steps: [
 *     { id: 'converge', agent: 'quant_strategist', action: 'self', output: 'Strategy_Thesis.json' },
 *     { id: 'review', agent: 'reviewer', action: 'spawn', depends_on: ['converge'], on_revise: 'retry(converge, max=3)', on_block: 'escalate(ceo_coo)' },
 *     { id: 'approve', type: 'hitl', channel: '#approvals', depends_on: ['review'], condition: 'review.verdict == "pass"' },
 *   ],
 * });
 * console.log(result.ok && result.value.nodes.map((n) => n.kind)); // ['task', 'review', 'approval']
 * ```
 */
export function parsePipeline(data: unknown): ParsePipelineResult {
  const issues: string[] = [];
  if (!isRecord(data) || !Array.isArray(data['steps']))
    return { ok: false, issues: ['steps: expected a list'] };
  let trigger: { cron: string } | undefined;
  if (data['trigger'] !== undefined) {
    const match = TRIGGER.exec(String(data['trigger']));
    if (match === null) issues.push('trigger: expected cron "<5 fields>"');
    else trigger = { cron: match[1] as string };
  }
  const nodes = (data['steps'] as unknown[]).map((step, i) => readStep(step, `steps[${i}]`, issues));
  if (issues.length > 0) return { ok: false, issues };
  try {
    const value = definePipeline({
      name: data['name'] as string,
      ...(data['owner'] === undefined ? {} : { owner: data['owner'] as string }),
      ...(trigger === undefined ? {} : { trigger }),
      nodes: nodes as PipelineNode[],
    });
    return { ok: true, value };
  } catch (error) {
    if (!isParleyError(error, 'invalid_definition')) throw error;
    const found = (error.details as { issues: string[] }).issues;
    return { ok: false, issues: found.map((issue) => issue.replace(/^nodes\[/, 'steps[')) };
  }
}

function readStep(step: unknown, at: string, issues: string[]): PipelineNode | undefined {
  if (!isRecord(step)) {
    issues.push(`${at}: expected an object`);
    return undefined;
  }
  for (const key of Object.keys(step))
    if (!STEP_KEYS.includes(key)) issues.push(`${at}.${key}: not a step field`);
  const base = {
    id: step['id'] as string,
    dependsOn: (step['depends_on'] ?? []) as string[],
    ...(step['timeout_ms'] === undefined ? {} : { timeoutMs: step['timeout_ms'] as number }),
    ...(step['condition'] === undefined ? {} : { condition: readCondition(step['condition'], at, issues) }),
  };
  if (step['type'] === 'hitl') {
    return {
      ...base,
      kind: 'approval',
      ...(step['channel'] === undefined ? {} : { channel: String(step['channel']) }),
    };
  }
  if (step['type'] !== undefined) issues.push(`${at}.type: expected hitl or none`);
  const task = {
    ...base,
    agent: step['agent'] as string,
    action: (step['action'] ?? 'spawn') as 'spawn' | 'self',
    ...(step['output'] === undefined ? {} : { output: String(step['output']) }),
  };
  if (step['on_revise'] === undefined && step['on_block'] === undefined) return { ...task, kind: 'task' };
  const retry = step['on_revise'] === undefined ? undefined : RETRY.exec(String(step['on_revise']));
  const escalate = step['on_block'] === undefined ? undefined : ESCALATE.exec(String(step['on_block']));
  if (retry === null) issues.push(`${at}.on_revise: expected retry(<step>, max=<n>)`);
  if (escalate === null) issues.push(`${at}.on_block: expected escalate(<role>)`);
  const reviews = retry?.[1] ?? task.dependsOn[0] ?? '';
  return {
    ...task,
    kind: 'review',
    reviews,
    ...(retry?.[2] === undefined ? {} : { maxRevisions: Number(retry[2]) }),
    ...(escalate?.[1] === undefined ? {} : { escalateTo: escalate[1] }),
  };
}

function readCondition(text: unknown, at: string, issues: string[]): NodeCondition | undefined {
  const match = CONDITION.exec(String(text));
  if (match === null) {
    issues.push(`${at}.condition: expected <step>.<field> == "<value>" (or !=)`);
    return undefined;
  }
  const [, node, field, op, value] = match as unknown as [string, string, string, '==' | '!=', string];
  return { node, field, op, value };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
