import { isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { definePipeline, type PipelineInit, parsePipeline, toPipelineMermaid } from '../src/index.js';

/** The reference document's pipeline, its YAML read into plain data. */
const DSL = {
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
};
const steps = DSL.steps;

function issuesOf(data: unknown): readonly string[] {
  const result = parsePipeline(data);
  if (result.ok) throw new Error('expected a refusal');
  return result.issues;
}

function definitionIssues(init: unknown): readonly string[] {
  try {
    definePipeline(init as PipelineInit);
  } catch (error) {
    if (isParleyError(error, 'invalid_definition')) return (error.details as { issues: string[] }).issues;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('parsePipeline', () => {
  it('reads the reference DSL into typed nodes', () => {
    const result = parsePipeline(DSL);
    if (!result.ok) throw new Error(result.issues.join('\n'));
    const byId = Object.fromEntries(result.value.nodes.map((node) => [node.id, node]));
    expect(byId['review']).toMatchObject({
      kind: 'review',
      reviews: 'converge',
      maxRevisions: 3,
      escalateTo: 'ceo_coo',
    });
    expect(byId['data_analysis']?.condition).toEqual({
      node: 'review',
      field: 'verdict',
      op: '==',
      value: 'pass',
    });
    expect(byId['approve']).toMatchObject({
      kind: 'approval',
      channel: '#approvals',
      dependsOn: ['data_analysis'],
    });
    expect(byId['converge']).toMatchObject({ kind: 'task', action: 'self', timeoutMs: 900_000 });
    expect(result.value.trigger).toEqual({ cron: '30 7 * * 1-5' });
    expect(result.value.digest).toMatch(/^[0-9a-f]{8}$/);
    expect(parsePipeline(DSL)).toEqual(result); // the same content, the same digest
  });

  it('refuses malformed expressions and fields it does not know', () => {
    const bad = {
      ...DSL,
      trigger: 'every morning',
      steps: [
        ...steps.slice(0, 5),
        { ...steps[5], on_revise: 'retry(converge)', on_block: 'escalate ceo', colour: 'red' },
        { ...steps[6], condition: 'review.verdict is pass' },
        { ...steps[7], type: 'human' },
        'not a step',
      ],
    };
    expect(issuesOf(bad)).toEqual([
      'trigger: expected cron "<5 fields>"',
      'steps[5].colour: not a step field',
      'steps[5].on_revise: expected retry(<step>, max=<n>)',
      'steps[5].on_block: expected escalate(<role>)',
      'steps[6].condition: expected <step>.<field> == "<value>" (or !=)',
      'steps[7].type: expected hitl or none',
      'steps[8]: expected an object',
    ]);
    expect(issuesOf(null)).toEqual(['steps: expected a list']);
  });

  it('reports what definePipeline refuses under the step paths', () => {
    const cyclic = { ...DSL, steps: [{ ...steps[0], depends_on: ['approve'] }, ...steps.slice(1)] };
    expect(issuesOf(cyclic)).toEqual([
      'nodes: cycle intel → approve → data_analysis → review → converge → bull → structure → intel',
    ]);
    const upstream = {
      ...DSL,
      steps: [...steps.slice(0, 6), { ...steps[6], condition: 'approve.x != "y"' }, steps[7]],
    };
    expect(issuesOf(upstream)).toEqual(['steps[6].condition: reads "approve", which is not upstream']);
    const timed = {
      ...DSL,
      steps: [
        { ...steps[0], timeout_ms: 60_000 },
        { ...steps[1], on_block: 'escalate(ceo)' },
      ],
    };
    const parsed = parsePipeline(timed);
    expect(
      parsed.ok && parsed.value.nodes.map((n) => [n.timeoutMs, n.kind === 'review' && n.reviews]),
    ).toEqual([
      [60_000, false],
      [900_000, 'intel'],
    ]);
  });
});

describe('definePipeline', () => {
  it('refuses unknown dependencies, duplicate ids, bad names, kinds, limits and policies', () => {
    const issues = definitionIssues({
      name: 'bad name!',
      owner: 7,
      trigger: { cron: '61 * * * *' },
      nodes: [
        { id: 'a', kind: 'task', agent: 'x', dependsOn: ['nowhere', 'a'], timeoutMs: -1, action: 'fly' },
        { id: 'a', kind: 'job' },
        { id: 'b', kind: 'review', agent: 'r', reviews: 3, maxRevisions: 101, dependsOn: 'a' },
        {
          id: 'c',
          kind: 'task',
          agent: '',
          onFailure: { timeout: { retries: 30, after: 'abort' }, typo: { retries: 0, after: 'skip' } },
          onUnknown: 'retry',
        },
        { id: 'd', kind: 'approval', condition: { node: 'a', op: '>' } },
        null,
      ],
    });
    expect(issues).toEqual([
      'name: expected a short name',
      'owner: expected a short name',
      'trigger: minute: "61" is outside 0-59',
      'nodes[0].id: duplicate "a"',
      'nodes[0].dependsOn[0]: no node "nowhere"',
      'nodes[0].dependsOn[1]: no node "a"',
      'nodes[0].timeoutMs: expected 1 to 2147483647 ms',
      'nodes[0].action: expected spawn or self',
      'nodes[1].id: duplicate "a"',
      'nodes[1].kind: expected task, review or approval',
      'nodes[1].agent: expected a short name',
      'nodes[2].dependsOn: expected a list',
      'nodes[2].reviews: expected a node id',
      'nodes[2].maxRevisions: expected 0 to 100',
      'nodes[3].agent: expected a short name',
      'nodes[3].onUnknown: expected rerun or report',
      'nodes[3].onFailure.timeout: expected { retries: 0–20, after: skip | escalate | abort }',
      'nodes[3].onFailure.typo: expected { retries: 0–20, after: skip | escalate | abort }',
      "nodes[4].condition: expected { node, field, op: '==' | '!=', value }",
      'nodes[5]: expected a node',
    ]);
    expect(definitionIssues({ name: 'p' })).toEqual(['nodes: expected a list']);
    expect(definitionIssues({ name: 'p', nodes: [] })).toEqual(['nodes: expected 1 to 200 nodes']);
    expect(
      definitionIssues({ name: 'p', nodes: [{ id: 'a', kind: 'task', agent: 'x' }], trigger: {} }),
    ).toEqual(['trigger: a cron expression has 5 fields, got 1']);
  });

  it('refuses a review of a node that is not upstream', () => {
    expect(
      definitionIssues({
        name: 'p',
        nodes: [
          { id: 'a', kind: 'task', agent: 'x' },
          { id: 'r', kind: 'review', agent: 'y', reviews: 'a' },
        ],
      }),
    ).toEqual(['nodes[1].reviews: "a" is not upstream']);
  });
});

describe('toPipelineMermaid', () => {
  it('draws the reference pipeline with its trigger, gate, condition and escalation', () => {
    const result = parsePipeline(DSL);
    if (!result.ok) throw new Error('invalid');
    const text = toPipelineMermaid(result.value);
    expect(text).toContain('trigger(["cron #quot;30 7 * * 1-5#quot;<br/>at 07:30 UTC, Monday to Friday"])');
    expect(text).toContain('review{{"review<br/>reviewer · spawn<br/>Review_Report.json"}}');
    expect(text).toContain('approve[/"approve<br/>human approval · #approvals"/]');
    expect(text).toContain('review -- "review.verdict == #quot;pass#quot;" --> data_analysis');
    expect(text).toContain('review -. "revise (≤ 3 rounds)" .-> converge');
    expect(text).toContain('review -. block .-> escalate_ceo_coo');
    expect(text).not.toContain('classDef');
  });

  it('colours nodes by their live state', () => {
    const pipeline = definePipeline({
      name: 'p',
      nodes: [
        { id: 'a', kind: 'task', agent: 'x', output: 'A.json' },
        { id: 'b', kind: 'review', agent: 'y', reviews: 'a', dependsOn: ['a'] },
        { id: 'c', kind: 'approval', dependsOn: ['b'] },
      ],
    });
    const text = toPipelineMermaid(pipeline, {
      a: 'done',
      b: { v: 1, status: 'running', attempts: 1, spawns: 0, revision: 0, failures: {} },
    });
    expect(text.split('\n').slice(-6)).toEqual([
      '  classDef done fill:#dcfce7,stroke:#16a34a',
      '  classDef running fill:#dbeafe,stroke:#2563eb',
      '  classDef pending fill:#f4f4f4,stroke:#999',
      '  class a done',
      '  class b running',
      '  class c pending',
    ]);
    expect(text).toContain('c[/"c<br/>human approval"/]');
    expect(text).not.toContain('trigger');
    expect(text).not.toContain('escalate_');
  });
});
