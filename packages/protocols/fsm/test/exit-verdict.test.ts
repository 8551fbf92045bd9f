// An exit condition that depends on earlier steps can name what is missing: a verdict
// `{ reason, missingFields }` fails the step like a reason does, and its fields reach the result,
// the failure policy, the one-line description and the restore check.
import { isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createFlowSession,
  defineFlow,
  describeFlowResult,
  type FailurePolicy,
  type StepFailure,
} from '../src/index.js';

const seen: StepFailure[] = [];

/** Every target of the scope needs its own justification in the evidence step. */
const flow = defineFlow({
  id: 'per-target',
  version: 1,
  steps: [
    { name: 'scope', prompt: 'Targets?', fields: z.object({ targets: z.array(z.string()).min(1) }) },
    {
      name: 'evidence',
      prompt: 'Why is each target in scope?',
      fields: z.object({ justifications: z.record(z.string(), z.string().min(1)) }),
      exit: (fields, collected) => {
        const given = fields.justifications as Record<string, string>; // the schema above checked it
        const targets = collected.scope?.targets as string[]; // the scope step is complete
        const missing = targets.filter((target) => given[target] === undefined);
        return (
          missing.length === 0 || {
            reason: `${missing.length} target(s) have no justification of their own`,
            missingFields: missing.map((target) => `justifications["${target}"]`),
          }
        );
      },
      onFailure: (failure: StepFailure): FailurePolicy<'scope' | 'evidence'> => {
        seen.push(failure);
        return { action: 'retry', message: `Please justify ${failure.missingFields.join(', ')}` };
      },
    },
  ],
});

function atEvidence() {
  const session = createFlowSession(flow);
  session.submit({ targets: ['x:1', 'x:2'] });
  return session;
}

describe('an exit verdict with missing fields', () => {
  it('fails the step with the fields it names, the reason and the policy taken', () => {
    const result = atEvidence().submit({ justifications: { 'x:1': 'reposts my photo' } });
    expect(result).toMatchObject({
      ok: false,
      code: 'exit_failed',
      step: 'evidence',
      missingFields: ['justifications["x:2"]'],
      detail: '1 target(s) have no justification of their own',
      reason: '1 target(s) have no justification of their own',
      issues: [],
      message: 'Please justify justifications["x:2"]',
    });
  });

  it('hands the named fields to a failure policy function', () => {
    seen.length = 0;
    atEvidence().submit({ justifications: {} });
    expect(seen.map((failure) => failure.missingFields)).toEqual([
      ['justifications["x:1"]', 'justifications["x:2"]'],
    ]);
  });

  it('describes the failure with the missing fields and the reason', () => {
    const result = atEvidence().submit({ justifications: { 'x:2': 'copies my text' } });
    expect(describeFlowResult(result)).toBe(
      '✗ exit_failed, retry: missing justifications["x:1"]; 1 target(s) have no justification of their own',
    );
  });

  it('goes on once every field it named is given', () => {
    const session = atEvidence();
    const result = session.submit({ justifications: { 'x:1': 'a', 'x:2': 'b' } });
    expect(result).toMatchObject({ ok: true, next: 'done' });
  });

  it('refuses a restored snapshot whose completed step fails the verdict, naming the fields', () => {
    const session = atEvidence();
    session.submit({ justifications: { 'x:1': 'a', 'x:2': 'b' } });
    const snapshot = JSON.parse(JSON.stringify(session.snapshot())) as Record<string, unknown>;
    const fields = { ...(snapshot.fields as object), evidence: { justifications: { 'x:1': 'a' } } };
    let refusal: unknown;
    try {
      flow.restore({ ...snapshot, fields });
    } catch (error) {
      refusal = error;
    }
    expect(isParleyError(refusal, 'invalid_fields')).toBe(true);
    expect((refusal as { details: unknown }).details).toMatchObject({
      step: 'evidence',
      reason: '1 target(s) have no justification of their own',
      missingFields: ['justifications["x:2"]'],
    });
  });
});
