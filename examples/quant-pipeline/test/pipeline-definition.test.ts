import { readFileSync } from 'node:fs';
import { validate } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { ARTIFACT_SCHEMAS, BullishBrief } from '../src/artifacts.js';
import { nextCronRun, parseCron } from '../src/cron.js';
import { bullBriefIncomplete, reviewPass } from '../src/fixtures.js';
import { toPipelineMermaid } from '../src/mermaid.js';
import { DAILY_QUANT_PIPELINE, parsePipeline } from '../src/pipeline.js';
import { DEMO_START } from '../src/run.js';

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
    const byId = Object.fromEntries(result.value.steps.map((step) => [step.id, step]));
    expect(byId['review']).toMatchObject({
      on_revise: { step: 'converge', max: 3 },
      on_block: { escalateTo: 'ceo_coo' },
    });
    expect(byId['data_analysis']?.condition).toEqual({
      source: 'review.verdict == "pass"',
      step: 'review',
      field: 'verdict',
      op: '==',
      value: 'pass',
    });
    expect(byId['intel']?.depends_on).toEqual([]);
    expect(result.value.trigger.cron.description).toBe('at 07:30 UTC, Monday to Friday');
  });

  it('refuses a dependency cycle', () => {
    const cyclic = {
      ...DAILY_QUANT_PIPELINE,
      steps: [{ ...steps[0], depends_on: ['approve'] }, ...steps.slice(1)],
    };
    expect(issuesOf(cyclic).join('\n')).toMatch(/steps: cycle: intel → approve → data_analysis → .* → intel/);
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
        'steps[8].id: duplicate step id',
        'steps[8].depends_on[0]: no step "nowhere"',
        'steps[9].output: not an artifact the example has a schema for',
      ]),
    );
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
      'trigger: a cron expression has 5 fields, got 4',
      'steps[5].on_revise: expected retry(<step>, max=<n>)',
      'steps[5].on_block: expected escalate(<role>)',
      'steps[7].condition: expected <step>.<field> == "<value>" (or !=)',
    ]);
    const upstream = {
      ...DAILY_QUANT_PIPELINE,
      steps: [...steps.slice(0, 6), { ...steps[6], condition: 'approve.x != "y"' }, steps[7]],
    };
    expect(issuesOf(upstream)).toEqual(['steps[6].condition: a condition reads a step this one depends on']);
    const retryOther = {
      ...DAILY_QUANT_PIPELINE,
      steps: [...steps.slice(0, 5), { ...review, on_revise: 'retry(intel, max=3)' }, ...steps.slice(6)],
    };
    expect(issuesOf(retryOther)).toEqual([
      'steps[5].on_revise: on_revise retries a step this one depends on',
    ]);
  });
});

describe('the cron trigger', () => {
  it('reads ranges, lists and steps, and finds the next weekday run', () => {
    const cron = parseCron('30 7 * * 1-5');
    if (!cron.ok) throw new Error(cron.message);
    expect(cron.value.daysOfWeek).toEqual([1, 2, 3, 4, 5]);
    // 2026-04-10 07:30 is a Friday: the next run is Monday 07:30
    expect(new Date(nextCronRun(cron.value, DEMO_START) as number).toISOString()).toBe(
      '2026-04-13T07:30:00.000Z',
    );
    const every = parseCron('*/15 9,17 1 */3 0,7');
    if (!every.ok) throw new Error(every.message);
    expect(every.value).toMatchObject({
      minutes: [0, 15, 30, 45],
      hours: [9, 17],
      months: [1, 4, 7, 10],
      daysOfWeek: [0],
    });
    expect(every.value.description).toBe(
      'at minute */15 of hour 9,17 (UTC), Sunday, day-of-month 1, month */3',
    );
  });

  it('refuses fields out of range or unreadable', () => {
    expect(parseCron('60 7 * * *')).toEqual({ ok: false, message: 'minute: "60" is outside 0-59' });
    expect(parseCron('30 7 * * mon')).toEqual({ ok: false, message: 'day of week: cannot read "mon"' });
    const never = parseCron('0 0 31 2 *');
    expect(never.ok && nextCronRun(never.value, DEMO_START)).toBeUndefined();
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
