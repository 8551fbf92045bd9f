import { describe, expect, it } from 'vitest';
import { allowanceCovers, allowanceOf, allowanceScope, createConfirmation } from '../src/index.js';

// The standing allowance's rules alone: what a decision grants, what it covers, who it lets in.
const base = {
  sessionKey: 'slack:T1:C1',
  action: { name: 'deploy', args: { v: 1 } },
  summary: 'Deploy',
  requester: 'U1',
};
const recordOf = (extra: Record<string, unknown> = {}, id = 'c1') =>
  createConfirmation({ ...base, ...extra }, { id, now: 0 }).record;
const confirmed = { outcome: 'confirmed', decidedBy: 'U1', decidedAt: 5, allowUntil: 100 } as const;

describe('allowanceScope', () => {
  it('is the same for another action digest of the same name, and differs by session, name and policy', () => {
    const scope = allowanceScope(recordOf());
    expect(allowanceScope(recordOf({ action: { name: 'deploy', args: { v: 2 } } }))).toBe(scope);
    expect(allowanceScope(recordOf({ sessionKey: 'slack:T1:C2' }))).not.toBe(scope);
    expect(allowanceScope(recordOf({ action: { name: 'drop', args: {} } }))).not.toBe(scope);
    expect(allowanceScope(recordOf({ approvers: 'any' }))).not.toBe(scope);
    expect(allowanceScope(recordOf({ requester: 'U2' }))).not.toBe(scope);
  });

  it('reads a list of approvers as a set', () => {
    expect(allowanceScope(recordOf({ approvers: ['b', 'a', 'b'] }))).toBe(
      allowanceScope(recordOf({ approvers: ['a', 'b'] })),
    );
  });
});

describe('allowanceOf', () => {
  it('grants for a confirmed decision with allowUntil, by who answered', () => {
    expect(allowanceOf(confirmed, recordOf())).toEqual({
      grantedBy: 'U1',
      grantedAt: 5,
      decisionId: 'c1',
      approvers: 'requester',
      requester: 'U1',
    });
  });

  it('grants nothing for another outcome, no allowUntil, or no one who answered', () => {
    expect(allowanceOf({ ...confirmed, outcome: 'cancelled' }, recordOf())).toBeUndefined();
    expect(allowanceOf({ ...confirmed, allowUntil: undefined }, recordOf())).toBeUndefined();
    expect(allowanceOf({ ...confirmed, decidedBy: undefined }, recordOf())).toBeUndefined();
  });
});

describe('allowanceCovers', () => {
  it('lets in a granter who may answer the request, and nobody else', () => {
    const listed = recordOf({ approvers: ['ops1', 'ops2'] });
    expect(allowanceCovers(listed, 'ops2')).toBe('ops2');
    expect(allowanceCovers(listed, 'U1')).toBeNull();
    expect(allowanceCovers(recordOf({ approvers: 'any' }), 'anyone')).toBe('anyone');
    expect(allowanceCovers(recordOf(), undefined)).toBeNull();
  });
});
