import type { ConsentFact, ConsentLedger } from '@parley/core';
import { isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { ACTION, flush, setup } from './helpers.js';

/** A consent ledger that keeps facts in order and refuses the kinds (or the n-th append) it is told to. */
function recordingLedger(refuse: { kinds?: readonly string[]; throws?: boolean } = {}): ConsentLedger & {
  facts: { session: string; fact: ConsentFact }[];
  refuse: Set<string>;
} {
  const facts: { session: string; fact: ConsentFact }[] = [];
  const refused = new Set(refuse.kinds ?? []);
  return {
    facts,
    refuse: refused,
    async append(session, fact) {
      if (refused.has(fact.kind)) {
        if (refuse.throws === true) throw new Error('disk full');
        return { ok: false, code: 'store_failed', message: 'the store refused' };
      }
      const key = JSON.stringify(fact);
      if (!facts.some((f) => JSON.stringify(f.fact) === key)) facts.push({ session, fact });
      return { ok: true };
    },
  };
}

const kinds = (ledger: { facts: { fact: ConsentFact }[] }): string[] => ledger.facts.map((f) => f.fact.kind);

describe('createConfirmGate({ ledger })', () => {
  it('appends the request, the delivered prompt, the answer, the decision and the authorization in order', async () => {
    const ledger = recordingLedger();
    const h = await setup({ ledger });
    const { decision } = await h.ask();
    await h.channel.say('g1', 'alice', '确认');
    const final = await decision;
    expect(await h.gate.authorize(final, ACTION)).toMatchObject({ ok: true });
    expect(kinds(ledger)).toEqual(['request', 'prompt_delivered', 'answer', 'decision', 'authorization']);
    expect(ledger.facts.every((f) => f.session === 'feishu:g1')).toBe(true);
    const [request, prompt] = ledger.facts.map((f) => f.fact);
    expect(request).toMatchObject({ kind: 'request', ref: final.id, actionDigest: final.action.digest });
    expect(prompt).toMatchObject({ kind: 'prompt_delivered', confirmationId: final.id, step: 0, attempt: 1 });
    // the fake channel's receipt names the platform message: it is carried into the delivered prompt
    expect(prompt?.kind === 'prompt_delivered' && prompt.messageId).toBe('msg_1');
    expect(prompt?.kind === 'prompt_delivered' && prompt.textDigest).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a request it cannot record (not_recorded) and never prompts it', async () => {
    const ledger = recordingLedger({ kinds: ['request'] });
    const h = await setup({ ledger });
    const decision = await h.request();
    expect(decision).toMatchObject({ outcome: 'refused', reason: 'not_recorded' });
    expect(h.channel.sent).toHaveLength(0);
    expect(await h.gate.authorize(decision, ACTION)).toMatchObject({ ok: false });
    expect(h.events.error.some((e) => isParleyError(e, 'not_recorded'))).toBe(true);
  });

  it('refuses the authorization when the decision cannot be recorded, and leaves the decision usable', async () => {
    const ledger = recordingLedger({ kinds: ['decision'], throws: true });
    const h = await setup({ ledger });
    const { decision } = await h.ask();
    await h.channel.say('g1', 'alice', '确认');
    const final = await decision;
    expect(await h.gate.authorize(final, ACTION)).toEqual({ ok: false, code: 'not_recorded' });
    expect(kinds(ledger)).not.toContain('decision');
    ledger.refuse.clear(); // the store is back: the same decision authorizes once
    expect(await h.gate.authorize(final, ACTION)).toMatchObject({ ok: true });
    expect(kinds(ledger)).toEqual(['request', 'prompt_delivered', 'answer', 'decision', 'authorization']);
  });

  it('refuses the authorization (and the decision is spent) when the authorization cannot be recorded', async () => {
    const ledger = recordingLedger({ kinds: ['authorization'] });
    const h = await setup({ ledger });
    const { decision } = await h.ask();
    await h.channel.say('g1', 'alice', '确认');
    const final = await decision;
    expect(await h.gate.authorize(final.id, ACTION)).toEqual({ ok: false, code: 'not_recorded' });
    ledger.refuse.clear();
    expect(await h.gate.authorize(final, ACTION)).toEqual({ ok: false, code: 'already_used' });
  });

  it('refuses the authorization of a confirmation whose delivered prompt was not recorded', async () => {
    const ledger = recordingLedger({ kinds: ['prompt_delivered'] });
    const h = await setup({ ledger });
    const { decision } = await h.ask();
    await h.channel.say('g1', 'alice', '确认');
    const final = await decision;
    ledger.refuse.clear();
    expect(await h.gate.authorize(final, ACTION)).toEqual({ ok: false, code: 'not_recorded' });
  });

  it('goes on without the records under ledgerRequired: false, reporting each failed append', async () => {
    const ledger = recordingLedger({ kinds: ['request', 'decision', 'authorization'] });
    const h = await setup({ ledger, ledgerRequired: false });
    const { decision } = await h.ask();
    await h.channel.say('g1', 'alice', '确认');
    const final = await decision;
    expect(await h.gate.authorize(final, ACTION)).toMatchObject({ ok: true });
    await flush();
    expect(h.events.error.filter((e) => isParleyError(e, 'not_recorded')).length).toBeGreaterThanOrEqual(3);
  });

  it('records a duplicate delivery of the same decision once', async () => {
    const ledger = recordingLedger();
    const h = await setup({ ledger });
    const { decision } = await h.ask();
    await h.channel.say('g1', 'alice', '确认');
    const final = await decision;
    await flush();
    expect(await h.gate.authorize(final, ACTION)).toMatchObject({ ok: true });
    expect(kinds(ledger).filter((k) => k === 'decision')).toHaveLength(1);
  });

  it('records the stored decision, never a decision object made up by the caller', async () => {
    const ledger = recordingLedger();
    const h = await setup({ ledger });
    const { decision } = await h.ask();
    await h.channel.say('g1', 'alice', '取消');
    const final = await decision;
    const forged = { ...final, outcome: 'confirmed' as const, decidedBy: 'mallory' };
    expect(await h.gate.authorize(forged, ACTION)).toEqual({ ok: false, code: 'not_confirmed' });
    expect(JSON.stringify(ledger.facts)).not.toContain('mallory');
    expect(ledger.facts.filter((f) => f.fact.kind === 'decision').map((f) => f.fact)).toEqual([
      expect.objectContaining({ outcome: 'cancelled', decidedBy: 'alice' }),
    ]);
  });

  it('rejects a ledger without an append function', async () => {
    await expect(setup({ ledger: {} as ConsentLedger })).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('stops appending once closed', async () => {
    const ledger = recordingLedger();
    const h = await setup({ ledger });
    const { decision } = await h.ask();
    await h.gate.close();
    await decision;
    await flush();
    expect(kinds(ledger)).toEqual(['request', 'prompt_delivered']);
  });
});
