import { describe, expect, it } from 'vitest';
import {
  appendConsent,
  appendConsentFacts,
  type ConsentFact,
  type ConsentLedger,
  isConsentLedger,
} from '../src/index.js';

const FACT: ConsentFact = { kind: 'effect', confirmationId: 'c1', outcome: 'succeeded' };

describe('appendConsent', () => {
  it('answers what the ledger answered when it recorded the fact', async () => {
    const seen: ConsentFact[] = [];
    const ledger: ConsentLedger = {
      append: async (_session, fact) => {
        seen.push(fact);
        return { ok: true };
      },
    };
    expect(await appendConsent(ledger, 's1', FACT)).toEqual({ ok: true });
    expect(seen).toEqual([FACT]);
  });

  it('passes a refusal on as plain data (code and message only)', async () => {
    const ledger = {
      append: async () => ({ ok: false as const, code: 'no_consent', message: 'no authorization', extra: 1 }),
    };
    expect(await appendConsent(ledger, 's1', FACT)).toEqual({
      ok: false,
      code: 'no_consent',
      message: 'no authorization',
    });
  });

  it('answers store_failed, never rejecting, when the ledger throws or rejects', async () => {
    const throwing: ConsentLedger = {
      append: () => {
        throw 'disk full'; // not even an Error
      },
    };
    const rejecting: ConsentLedger = { append: async () => Promise.reject(new Error('timeout')) };
    expect(await appendConsent(throwing, 's1', FACT)).toMatchObject({ ok: false, code: 'store_failed' });
    expect(await appendConsent(rejecting, 's1', FACT)).toEqual({
      ok: false,
      code: 'store_failed',
      message: 'the consent ledger failed: timeout',
    });
  });
});

describe('isConsentLedger', () => {
  it('accepts an object with an append function and nothing else', () => {
    expect(isConsentLedger({ append: async () => ({ ok: true }) })).toBe(true);
    for (const value of [undefined, null, {}, { append: 'no' }, 'ledger', () => undefined]) {
      expect(isConsentLedger(value)).toBe(false);
    }
  });
});

describe('appendConsentFacts', () => {
  const authorization: ConsentFact = {
    kind: 'authorization',
    confirmationId: 'c1',
    actionDigest: 'sha256:ab',
  };
  const effect: ConsentFact = { kind: 'effect', confirmationId: 'c1', outcome: 'succeeded' };

  it('appends every fact in order', async () => {
    const seen: ConsentFact[] = [];
    const ledger: ConsentLedger = {
      append: async (_s, fact) => {
        seen.push(fact);
        return { ok: true };
      },
    };
    expect(await appendConsentFacts(ledger, 's1', [authorization, effect])).toEqual({ ok: true });
    expect(seen).toEqual([authorization, effect]);
  });

  it('stops at the first fact not recorded, names it, and appends nothing after it', async () => {
    const seen: ConsentFact['kind'][] = [];
    const ledger: ConsentLedger = {
      append: async (_s, fact) => {
        seen.push(fact.kind);
        if (fact.kind === 'authorization') throw new Error('disk full');
        return { ok: true };
      },
    };
    expect(await appendConsentFacts(ledger, 's1', [authorization, effect])).toMatchObject({
      ok: false,
      code: 'store_failed',
      fact: authorization,
    });
    expect(seen).toEqual(['authorization']);
  });
});
