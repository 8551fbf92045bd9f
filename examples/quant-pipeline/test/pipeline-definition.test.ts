import { readFileSync } from 'node:fs';
import { validate } from '@parley/core';
import { toPipelineMermaid } from '@parley/pipeline';
import { describe, expect, it } from 'vitest';
import { ARTIFACT_SCHEMAS, BullishBrief } from '../src/artifacts.js';
import { bullBriefIncomplete, reviewPass } from '../src/fixtures.js';
import { DAILY_QUANT_PIPELINE, parsePipeline } from '../src/pipeline.js';

const steps = DAILY_QUANT_PIPELINE.steps;

function issuesOf(data: unknown): readonly string[] {
  const result = parsePipeline(data);
  if (result.ok) throw new Error('expected a refusal');
  return result.issues;
}

describe('the pipeline definition', () => {
  it('accepts the document pipeline and parses its expressions', () => {
    const result = parsePipeline(DAILY_QUANT_PIPELINE);
    if (!result.ok) throw new Error(result.issues.join('\n'));
    const byId = Object.fromEntries(result.value.nodes.map((step) => [step.id, step]));
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
    expect(byId['intel']?.dependsOn).toEqual([]);
    expect(byId['backtest_review']).toMatchObject({
      kind: 'review',
      reviews: 'data_analysis',
      maxRevisions: 2,
      escalateTo: 'ceo_coo',
    });
    expect(byId['approve']).toMatchObject({ kind: 'approval', timeoutMs: 60 * 60_000 });
    expect(result.value.trigger).toEqual({ cron: '30 7 * * 1-5' });
  });

  it('refuses a dependency cycle', () => {
    const cyclic = {
      ...DAILY_QUANT_PIPELINE,
      steps: [{ ...steps[0], depends_on: ['approve'] }, ...steps.slice(1)],
    };
    expect(issuesOf(cyclic).join('\n')).toMatch(
      /nodes: cycle intel → approve → backtest_review → data_analysis → .* → intel/,
    );
  });

  it('refuses unknown dependencies, duplicate ids and unknown artifacts', () => {
    const bad = {
      ...DAILY_QUANT_PIPELINE,
      steps: [
        ...steps,
        { ...steps[1], depends_on: ['nowhere'] },
        { ...steps[2], id: 'x', output: 'Memo.json' },
      ],
    };
    expect(issuesOf(bad)).toEqual(
      expect.arrayContaining([
        'steps[1].id: duplicate "structure"',
        'steps[9].dependsOn[0]: no node "nowhere"',
      ]),
    );
    const memo = {
      ...DAILY_QUANT_PIPELINE,
      steps: [...steps, { ...steps[2], id: 'x', output: 'Memo.json' }],
    };
    expect(issuesOf(memo)).toEqual(['steps[9].output: not an artifact the example has a schema for']);
  });

  it('refuses malformed expressions and a condition on a step that is not upstream', () => {
    const review = steps[5];
    const bad = {
      ...DAILY_QUANT_PIPELINE,
      trigger: 'cron "30 7 * *"',
      steps: [
        ...steps.slice(0, 5),
        { ...review, on_revise: 'retry(converge)', on_block: 'escalate ceo' },
        { ...steps[6], condition: 'approve.verdict == "pass"' },
        { ...steps[7], condition: 'review.verdict is pass' },
      ],
    };
    expect(issuesOf(bad)).toEqual([
      'steps[5].on_revise: expected retry(<step>, max=<n>)',
      'steps[5].on_block: expected escalate(<role>)',
      'steps[7].condition: expected <step>.<field> == "<value>" (or !=)',
    ]);
    const upstream = {
      ...DAILY_QUANT_PIPELINE,
      steps: [...steps.slice(0, 6), { ...steps[6], condition: 'approve.x != "y"' }, ...steps.slice(7)],
    };
    expect(issuesOf(upstream)).toEqual(['steps[6].condition: reads "approve", which is not upstream']);
    const cron = { ...DAILY_QUANT_PIPELINE, trigger: 'cron "30 7 * *"' };
    expect(issuesOf(cron)).toEqual(['trigger: a cron expression has 5 fields, got 4']);
  });
});

describe('the artifact schemas', () => {
  it('name the absent required fields of an incomplete brief, never accepting nulls', () => {
    const result = validate(BullishBrief, bullBriefIncomplete);
    expect(result.ok ? [] : result.missingFields).toEqual(['key_levels[0].evidence', 'invalidation']);
    const nulls = validate(ARTIFACT_SCHEMAS['Review_Report.json'], { ...reviewPass, summary: null });
    expect(nulls.ok ? [] : nulls.missingFields).toEqual(['summary']);
  });
});

describe('the README', () => {
  it('shows the Mermaid diagram generated from the pipeline data', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const block = /```mermaid\n([\s\S]*?)\n```/.exec(readme)?.[1];
    const parsed = parsePipeline(DAILY_QUANT_PIPELINE);
    if (!parsed.ok) throw new Error(parsed.issues.join('\n'));
    expect(block).toBe(toPipelineMermaid(parsed.value));
  });
});
