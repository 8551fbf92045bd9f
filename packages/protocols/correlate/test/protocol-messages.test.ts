// The built-in protocols' schemas are zod/mini (a fraction of zod's classic bundle), which has no
// locale: each check names what it wants, so a refusal never reads only "Invalid input".
import { describe, expect, it } from 'vitest';
import { planApprovalProtocol, shutdownProtocol } from '../src/index.js';

const messages = (schema: { '~standard': { validate(v: unknown): unknown } }, value: unknown): string[] => {
  const result = schema['~standard'].validate(value) as { issues?: { message: string }[] };
  return (result.issues ?? []).map((issue) => issue.message);
};

describe('the built-in protocols say what is wrong in plain words', () => {
  it.each([
    [
      'a shutdown reason too long',
      shutdownProtocol.request,
      { reason: 'x'.repeat(4001) },
      ['reason must be at most 4000 characters'],
    ],
    [
      'a shutdown request that is not an object',
      shutdownProtocol.request,
      'stop',
      ['the request must be an object'],
    ],
    [
      'an answer without approve and a reason that is no string',
      shutdownProtocol.response,
      { reason: 5 },
      ['approve must be true or false', 'reason must be a string'],
    ],
    [
      'an answer that is not an object',
      planApprovalProtocol.response,
      null,
      ['the answer must be an object'],
    ],
    ['an empty plan', planApprovalProtocol.request, { plan: '' }, ['plan must not be empty']],
    [
      'a plan too long',
      planApprovalProtocol.request,
      { plan: 'p'.repeat(100_001) },
      ['plan must be at most 100000 characters'],
    ],
    ['a plan that is no string', planApprovalProtocol.request, { plan: 7 }, ['plan must be a string']],
  ])('refuses %s', (_, schema, value, expected) => {
    expect(messages(schema, value)).toEqual(expected);
  });

  it('accepts a plan of exactly 100000 characters and a reason of exactly 4000', () => {
    expect(
      messages(planApprovalProtocol.request, { plan: 'p'.repeat(100_000), reason: 'r'.repeat(4000) }),
    ).toEqual([]);
  });
});
