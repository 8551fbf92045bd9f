import { canonicalJson, type JsonValue, MAX_TIMEOUT_MS } from '@parley/core';
import { parseCron } from './cron.js';
import { PipelineError } from './errors.js';
import { FAILURE_KINDS, type PipelineDefinition, type PipelineInit, type PipelineNode } from './types.js';

/**
 * How long one attempt of a node (or an approval) may take by default: 15 minutes.
 *
 * @example
 * ```ts
 * import { DEFAULT_NODE_TIMEOUT_MS } from '@parley/pipeline';
 *
 * console.log(DEFAULT_NODE_TIMEOUT_MS / 60_000); // 15
 * ```
 */
export const DEFAULT_NODE_TIMEOUT_MS = 15 * 60_000;

/**
 * The most nodes a pipeline may have: 200.
 *
 * @example
 * ```ts
 * import { MAX_PIPELINE_NODES } from '@parley/pipeline';
 *
 * console.log(MAX_PIPELINE_NODES); // 200
 * ```
 */
export const MAX_PIPELINE_NODES = 200;

const NAME = /^[A-Za-z0-9_.#:-]{1,100}$/;
const KINDS = ['task', 'review', 'approval'];

/**
 * Checks a pipeline written in code and fills in its defaults: unique ids, dependencies that exist
 * and form a DAG, conditions that read an upstream node, review targets, timeouts, policies, cron.
 *
 * Use it as a module constant; the seed's DSL goes through {@link parsePipeline}, which ends here.
 *
 * @throws PipelineError `invalid_definition` with every problem in `details.issues`.
 * @example
 * ```ts
 * import { definePipeline } from '@parley/pipeline';
 *
 * const pipeline = definePipeline({
 *   name: 'daily',
 *   owner: 'quant_strategist',
 *   nodes: [
 *     { id: 'bull', kind: 'task', agent: 'bullish_researcher' },
 *     { id: 'bear', kind: 'task', agent: 'bearish_researcher' },
 *     { id: 'converge', kind: 'task', agent: 'quant_strategist', action: 'self', dependsOn: ['bull', 'bear'] },
 *   ],
 * });
 * console.log(pipeline.nodes.map((n) => n.id)); // ['bull', 'bear', 'converge']
 * ```
 */
export function definePipeline(init: PipelineInit): PipelineDefinition {
  const issues: string[] = [];
  if (typeof init !== 'object' || init === null || !Array.isArray(init.nodes)) {
    throw new PipelineError('invalid_definition', 'A pipeline needs a name and a list of nodes', {
      details: { issues: ['nodes: expected a list'] },
    });
  }
  if (typeof init.name !== 'string' || !NAME.test(init.name)) issues.push('name: expected a short name');
  if (init.owner !== undefined && (typeof init.owner !== 'string' || !NAME.test(init.owner)))
    issues.push('owner: expected a short name');
  if (init.trigger !== undefined) {
    const cron = parseCron(typeof init.trigger?.cron === 'string' ? init.trigger.cron : '');
    if (!cron.ok) issues.push(`trigger: ${cron.message}`);
  }
  if (init.nodes.length === 0 || init.nodes.length > MAX_PIPELINE_NODES)
    issues.push(`nodes: expected 1 to ${MAX_PIPELINE_NODES} nodes`);
  const ids = init.nodes.map((node) => node?.id);
  const nodes = init.nodes.map((node, i) => {
    const at = `nodes[${i}]`;
    checkNode(node, at, ids, issues);
    return Object.freeze({
      ...node,
      dependsOn: Object.freeze([...(node?.dependsOn ?? [])]),
      timeoutMs: node?.timeoutMs ?? DEFAULT_NODE_TIMEOUT_MS,
    });
  });
  if (issues.length === 0) {
    const cycle = findCycle(nodes);
    if (cycle !== undefined) issues.push(`nodes: cycle ${cycle.join(' → ')}`);
  }
  if (issues.length === 0) {
    nodes.forEach((node, i) => {
      const upstream = ancestors(nodes, node.id);
      if (node.condition !== undefined && !upstream.has(node.condition.node))
        issues.push(`nodes[${i}].condition: reads "${node.condition.node}", which is not upstream`);
      if (node.kind === 'review' && !upstream.has(node.reviews))
        issues.push(`nodes[${i}].reviews: "${node.reviews}" is not upstream`);
    });
  }
  if (issues.length > 0) {
    throw new PipelineError('invalid_definition', `Invalid pipeline: ${issues.join('; ')}`, {
      details: { issues },
    });
  }
  const body = { name: init.name, owner: init.owner, trigger: init.trigger, nodes };
  // Definitions are plain data (checked above); canonicalJson drops the undefined fields.
  const digest = fnv1a(canonicalJson(body as unknown as JsonValue));
  return Object.freeze({ ...body, nodes: Object.freeze(nodes), digest });
}

/** Every node `id` depends on, directly or not. */
export function ancestors(
  nodes: readonly { readonly id: string; readonly dependsOn: readonly string[] }[],
  id: string,
): Set<string> {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const seen = new Set<string>();
  const stack = [...(byId.get(id)?.dependsOn ?? [])];
  for (let dep = stack.pop(); dep !== undefined; dep = stack.pop()) {
    if (seen.has(dep)) continue;
    seen.add(dep);
    stack.push(...(byId.get(dep)?.dependsOn ?? []));
  }
  return seen;
}

function checkNode(node: PipelineNode, at: string, ids: readonly unknown[], issues: string[]): void {
  if (typeof node !== 'object' || node === null) {
    issues.push(`${at}: expected a node`);
    return;
  }
  if (typeof node.id !== 'string' || !NAME.test(node.id)) issues.push(`${at}.id: expected a short name`);
  else if (ids.indexOf(node.id) !== ids.lastIndexOf(node.id)) issues.push(`${at}.id: duplicate "${node.id}"`);
  if (!KINDS.includes(node.kind)) issues.push(`${at}.kind: expected task, review or approval`);
  const deps: unknown = node.dependsOn ?? [];
  if (!Array.isArray(deps)) issues.push(`${at}.dependsOn: expected a list`);
  else
    deps.forEach((dep, j) => {
      if (!ids.includes(dep) || dep === node.id)
        issues.push(`${at}.dependsOn[${j}]: no node "${String(dep)}"`);
    });
  const timeout = node.timeoutMs;
  if (timeout !== undefined && !(Number.isFinite(timeout) && timeout > 0 && timeout <= MAX_TIMEOUT_MS))
    issues.push(`${at}.timeoutMs: expected 1 to ${MAX_TIMEOUT_MS} ms`);
  const condition = node.condition;
  if (
    condition !== undefined &&
    (typeof condition.node !== 'string' ||
      typeof condition.field !== 'string' ||
      typeof condition.value !== 'string' ||
      (condition.op !== '==' && condition.op !== '!='))
  )
    issues.push(`${at}.condition: expected { node, field, op: '==' | '!=', value }`);
  if (node.kind === 'approval') return;
  if (typeof node.agent !== 'string' || !NAME.test(node.agent))
    issues.push(`${at}.agent: expected a short name`);
  if (node.action !== undefined && node.action !== 'spawn' && node.action !== 'self')
    issues.push(`${at}.action: expected spawn or self`);
  if (node.onUnknown !== undefined && node.onUnknown !== 'rerun' && node.onUnknown !== 'report')
    issues.push(`${at}.onUnknown: expected rerun or report`);
  for (const [kind, policy] of Object.entries(node.onFailure ?? {})) {
    const retries = policy?.retries;
    if (
      !(FAILURE_KINDS as readonly string[]).includes(kind) ||
      !Number.isInteger(retries) ||
      retries < 0 ||
      retries > 20 ||
      !['skip', 'escalate', 'abort'].includes(policy.after)
    )
      issues.push(`${at}.onFailure.${kind}: expected { retries: 0–20, after: skip | escalate | abort }`);
  }
  if (node.kind !== 'review') return;
  if (typeof node.reviews !== 'string') issues.push(`${at}.reviews: expected a node id`);
  const max = node.maxRevisions;
  if (max !== undefined && !(Number.isInteger(max) && max >= 0 && max <= 100))
    issues.push(`${at}.maxRevisions: expected 0 to 100`);
}

function findCycle(
  nodes: readonly { readonly id: string; readonly dependsOn: readonly string[] }[],
): string[] | undefined {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const state = new Map<string, 'visiting' | 'done'>();
  const path: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === 'done') return undefined;
    if (state.get(id) === 'visiting') return [...path.slice(path.indexOf(id)), id];
    state.set(id, 'visiting');
    path.push(id);
    for (const dep of byId.get(id)?.dependsOn ?? []) {
      const cycle = visit(dep);
      if (cycle !== undefined) return cycle;
    }
    path.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const node of nodes) {
    const cycle = visit(node.id);
    if (cycle !== undefined) return cycle;
  }
  return undefined;
}

/** A 32-bit FNV-1a digest of text, as 8 hex digits: identity of a definition, not security. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
