import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { digestAction, MAX_SUMMARY_LENGTH } from '../src/index.js';
import { setup } from './helpers.js';

// Issue 18, sections 3 and 4: the prompt shows the action exactly; the decision is bound to all
// of its content; standing allowances are scoped to who granted them and under which policy.

const PADDED = { comment: 'routine cleanup '.repeat(40), statement: 'DROP TABLE orders' };
const PADDED_ACTION = { name: 'sql.exec', args: PADDED };

describe('what a prompt shows', () => {
  it('[PROMPT-SHOWN] announces each delivered prompt with its exact text, its card and the platform order', async () => {
    const h = await setup({ unrecognised: 'reprompt' });
    const first = h.nextPrompt();
    const decision = h.request({ action: PADDED_ACTION, summary: 'x' });
    const shown = await first;
    const sent = h.channel.lastSent('g1');
    expect(shown).toMatchObject({ step: 0, reprompt: false, text: sent?.text, card: sent?.card });
    expect(shown.order).toMatchObject({ scope: expect.any(String), position: expect.any(Array) });
    const again = h.nextPrompt();
    await h.channel.say('g1', 'alice', 'maybe');
    const reprompted = await again;
    expect(reprompted).toMatchObject({ reprompt: true, text: h.channel.lastSent('g1')?.text });
    expect(reprompted.text).not.toBe(shown.text);
    await h.channel.say('g1', 'alice', '取消');
    expect(await decision).toMatchObject({ outcome: 'cancelled' });
  });

  it('[CONSENT-11] never cuts a long summary silently: name, digest, a visible marker and every argument', async () => {
    const h = await setup();
    const action = { name: 'sql.exec', args: PADDED };
    const summary = JSON.stringify(PADDED); // the model's key order: padding first
    await h.ask({ action, summary });
    const text = h.channel.lastSent('g1')?.text ?? '';
    const digest = await digestAction(action);
    expect(text).toContain(`[sql.exec · ${digest.slice(0, 12)}]`);
    expect(text).toContain(`… (${summary.length - MAX_SUMMARY_LENGTH} more characters)`);
    expect(text).toContain('"statement": "DROP TABLE orders"');
    expect(text.length).toBeLessThan(4 * MAX_SUMMARY_LENGTH);
    expect(h.channel.lastSent('g1')?.card?.body).toContain('DROP TABLE orders');
  });

  it('counts a summary in characters, not UTF-16 units: one longer in units but not in characters is shown whole', async () => {
    const h = await setup();
    const summary = `DROP ${'🗑'.repeat(MAX_SUMMARY_LENGTH - 5)}`; // each 🗑 is two UTF-16 units
    expect(summary.length).toBeGreaterThan(MAX_SUMMARY_LENGTH);
    await h.ask({ summary });
    const text = h.channel.lastSent('g1')?.text ?? '';
    expect(text).toContain(summary);
    expect(text).not.toContain('more characters');
  });

  it('shows a short summary whole, after the action name and digest', async () => {
    const h = await setup();
    await h.ask({ summary: 'DELETE 3 rows' });
    expect(h.channel.lastSent('g1')?.text).toMatch(/\[sql\.delete · [0-9a-f]{12}\] DELETE 3 rows/);
  });

  it('pages the rest of a shortened summary on "more" under summaryPaging, without deciding', async () => {
    const h = await setup({ summaryPaging: true });
    const { decision } = await h.ask({
      action: { name: 'sql.exec', args: PADDED },
      summary: JSON.stringify(PADDED),
    });
    expect(h.channel.lastSent('g1')?.text).toContain('reply "more"');
    h.clock.advance(1);
    const pages: string[] = [];
    for (let i = 0; i < 4; i++) {
      await h.channel.say('g1', 'alice', i % 2 === 0 ? 'more' : '更多');
      await Promise.resolve();
      pages.push(h.channel.lastSent('g1')?.text ?? '');
    }
    expect(pages[0]).toMatch(/\(1\/3\)/);
    expect(pages[2]).toContain('DROP TABLE orders');
    expect(pages[3]).toBe(pages[2]); // past the last page nothing more is sent
    expect(h.decided).toEqual([]);
    await h.channel.say('g1', 'alice', '取消');
    expect(await decision).toMatchObject({ outcome: 'cancelled' });
  });

  it('lists at most ten argument keys of a shortened summary and counts the rest', async () => {
    const h = await setup();
    const args = Object.fromEntries(
      Array.from({ length: 12 }, (_, i) => [`k${String(i).padStart(2, '0')}`, i]),
    );
    await h.ask({ action: { name: 'bulk', args }, summary: 'x'.repeat(600) });
    expect(h.channel.lastSent('g1')?.text).toContain('… 2 more keys');
  });
});

describe('the digest binds every part of the arguments', () => {
  it('[CONSENT-12] refuses to authorise an action with an own __proto__ key for a decision made without it', async () => {
    const h = await setup();
    const { decision } = await h.ask({
      action: { name: 'transfer', args: { to: 'bob', amount: 5 } },
      summary: 'pay bob 5',
    });
    h.clock.advance(1);
    await h.channel.say('g1', 'alice', '确认');
    const forged = JSON.parse('{"to":"bob","amount":5,"__proto__":{"amount":5000000}}');
    expect(await h.gate.authorize(await decision, { name: 'transfer', args: forged })).toEqual({
      ok: false,
      code: 'action_mismatch',
    });
    const deep = JSON.parse('{"to":"bob","amount":5,"meta":{"__proto__":{"x":1}}}');
    expect(await digestAction({ name: 'transfer', args: deep })).not.toBe(
      await digestAction({ name: 'transfer', args: { to: 'bob', amount: 5, meta: {} } }),
    );
  });

  const key = fc.oneof(
    fc.constantFrom('__proto__', 'constructor', 'a', 'é', 'e\u0301', 'Å', 'A\u030a'),
    fc.string(),
  );
  const json = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constantFrom(0, -0, 1, '', 'x', true, false, null),
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(key, tie('value'), { maxKeys: 3 }).map((entries) =>
        JSON.parse(
          `{${Object.entries(entries)
            .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`)
            .join(',')}}`,
        ),
      ),
    ),
  })).value;

  test.prop([json, json])(
    '[CONSENT-13] gives two different argument values different digests',
    async (a, b) => {
      const same = Object.is(a, b) || structurallyEqual(a, b);
      const [da, db] = [
        await digestAction({ name: 't', args: a }),
        await digestAction({ name: 't', args: b }),
      ];
      expect(da === db).toBe(same);
    },
  );

  it('[CONSENT-13] tells apart -0 and 0, own __proto__ keys, and NFC and NFD keys; not key order', async () => {
    const d = (args: unknown) => digestAction({ name: 't', args: args as never });
    expect(await d({ n: -0 })).not.toBe(await d({ n: 0 }));
    expect(await d(JSON.parse('{"__proto__":{"a":1}}'))).not.toBe(await d({}));
    expect(await d({ é: 1 })).not.toBe(await d({ 'e\u0301': 1 }));
    expect(await d({ a: 1, b: 2 })).toBe(await d({ b: 2, a: 1 }));
  });
});

/** Deep equality that sees own __proto__ keys, tells -0 from 0 and ignores key order. */
function structurallyEqual(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return Object.is(a, b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  if (ka.length !== kb.length || ka.some((k, i) => k !== kb[i])) return false;
  return ka.every((k) =>
    structurallyEqual(
      Object.getOwnPropertyDescriptor(a, k)?.value,
      Object.getOwnPropertyDescriptor(b, k)?.value,
    ),
  );
}

describe('standing allowances', () => {
  it('[CONSENT-14] does not let one approver’s "always" confirm a request under another approver policy', async () => {
    const h = await setup({ standingAllowanceMs: 600_000 });
    const first = await h.ask({ approvers: ['bob'] });
    h.clock.advance(1);
    await h.channel.say('g1', 'bob', 'always');
    expect(await first.decision).toMatchObject({ outcome: 'confirmed', allowUntil: expect.any(Number) });
    h.clock.advance(60_000); // past the after-decision window
    const second = await h.ask({ requester: 'dave', approvers: ['carol'] });
    expect(h.gate.pending()).toMatchObject([{ id: second.id, state: 'prompted' }]);
    const same = h.request({
      action: { name: 'sql.delete', args: { sql: 'DELETE FROM orders WHERE status = 1' } },
      requester: 'erin',
      approvers: ['bob'],
    });
    h.clock.advance(1);
    await h.channel.say('g1', 'carol', '取消');
    expect(await second.decision).toMatchObject({ outcome: 'cancelled', decidedBy: 'carol' });
    expect(await same).toMatchObject({
      outcome: 'confirmed',
      reason: 'standing_allowance',
      decidedBy: 'bob',
    });
  });
});
