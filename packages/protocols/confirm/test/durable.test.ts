import { describe, expect, it } from 'vitest';
import type { ConfirmDecision } from '../src/index.js';
import { ACTION, setup } from './helpers.js';

describe('restart (a new gate on the same store)', () => {
  it('intercepts the reply to a confirmation made before it and tells plainly that it expired', async () => {
    const before = await setup();
    await before.ask();
    const after = await before.restart();
    expect(after.gate.pending()).toMatchObject([{ id: 'cfm_1', restored: true, state: 'prompted' }]);
    const result = await after.channel.say('g1', 'alice', '确认');
    expect(result.status).toBe('intercepted');
    expect(after.bus.size.inbound).toBe(0);
    const decided = new Promise((resolve) => after.gate.on('decided', resolve));
    await decided;
    expect(after.decided).toMatchObject([
      { id: 'cfm_1', outcome: 'aborted', reason: 'expired', decidedBy: 'alice' },
    ]);
    await Promise.resolve();
    expect(after.channel.lastSent('g1')?.text).toContain('已过期');
    expect(await after.gate.authorize('cfm_1', ACTION)).toEqual({ ok: false, code: 'not_confirmed' });
  });

  it.each(['toString', 'constructor', 'hasOwnProperty'])(
    'takes no inherited %s for a resume handler: the restored confirmation expires with a notice',
    async (name) => {
      const before = await setup();
      await before.ask({ action: { name, args: {} } });
      const after = await before.restart({ resume: {} });
      const decided = new Promise((resolve) => after.gate.on('decided', resolve));
      await after.channel.say('g1', 'alice', '确认');
      await decided;
      expect(after.decided).toMatchObject([{ id: 'cfm_1', outcome: 'aborted', reason: 'expired' }]);
      await Promise.resolve();
      expect(after.channel.lastSent('g1')?.text).toContain('已过期');
    },
  );

  it('resumes through the handler registered by action name, with the persisted action', async () => {
    const before = await setup();
    await before.ask();
    const resumed: ConfirmDecision[] = [];
    const ran: unknown[] = [];
    let handled: () => void = () => {};
    const done = new Promise<void>((resolve) => {
      handled = resolve;
    });
    const after = await before.restart({
      resume: {
        'sql.delete': async (decision, gate) => {
          resumed.push(decision);
          if ((await gate.authorize(decision, decision.action)).ok) ran.push(decision.action.args);
          handled();
        },
      },
    });
    await after.channel.say('g1', 'alice', '确认');
    await done;
    await after.gate.close();
    expect(resumed).toMatchObject([{ outcome: 'confirmed', decidedBy: 'alice' }]);
    expect(ran).toEqual([ACTION.args]);
  });

  it('still times a restored confirmation out at its original deadline', async () => {
    const before = await setup();
    await before.ask();
    before.clock.advance(100_000);
    const after = await before.restart();
    after.clock.advance(199_999);
    expect(after.decided).toEqual([]);
    const decided = new Promise((resolve) => after.gate.on('decided', resolve));
    after.clock.advance(1);
    await decided;
    expect(after.decided).toMatchObject([{ outcome: 'timed_out' }]);
    expect(after.gate.pending()).toEqual([]);
  });

  it('reports a failing resume handler as an error event', async () => {
    const before = await setup();
    await before.ask();
    const after = await before.restart({
      resume: {
        'sql.delete': () => {
          throw new Error('db down');
        },
      },
    });
    const failed = new Promise((resolve) => after.gate.on('error', resolve));
    await after.channel.say('g1', 'alice', '取消');
    expect(await failed).toMatchObject({ id: 'cfm_1' });
  });

  it('does not restore a confirmation that was settled', async () => {
    const before = await setup();
    const { decision } = await before.ask();
    await before.channel.say('g1', 'alice', '确认');
    await decision;
    const after = await before.restart();
    expect(after.gate.pending()).toEqual([]);
    expect((await after.channel.say('g1', 'alice', '确认')).status).toBe('queued');
  });
});

describe('authorize', () => {
  it('refuses when the arguments changed after the prompt', async () => {
    const h = await setup();
    const args = { table: 'orders', where: { status: 1 } };
    const { decision } = await h.ask({ action: { name: 'delete', args } });
    args.where.status = 0; // mutated after the prompt
    await h.channel.say('g1', 'alice', '确认');
    const final = await decision;
    expect(final.action.args).toEqual({ table: 'orders', where: { status: 1 } });
    expect(await h.gate.authorize(final, { name: 'delete', args })).toEqual({
      ok: false,
      code: 'action_mismatch',
    });
    expect(await h.gate.authorize(final, { name: 'drop', args: final.action.args })).toEqual({
      ok: false,
      code: 'action_mismatch',
    });
    expect(
      await h.gate.authorize(final, { name: 'delete', args: { where: { status: 1 }, table: 'orders' } }),
    ).toMatchObject({ ok: true });
  });

  it('refuses a decision it never recorded, however it claims to be confirmed', async () => {
    const h = await setup();
    const forged = { id: 'cfm_x', outcome: 'confirmed' } as ConfirmDecision;
    expect(await h.gate.authorize(forged, ACTION)).toEqual({ ok: false, code: 'unknown_decision' });
    expect(await h.gate.authorize(undefined as unknown as string, ACTION)).toEqual({
      ok: false,
      code: 'unknown_decision',
    });
  });
});

describe('standing allowance', () => {
  it('confirms later requests of the same action kind in the session until it expires, recording each', async () => {
    const h = await setup({ standingAllowanceMs: 60_000 });
    const { decision } = await h.ask();
    expect(h.channel.lastSent('g1')?.card?.buttons).toHaveLength(3);
    await h.channel.say('g1', 'alice', '总是允许');
    expect(await decision).toMatchObject({ outcome: 'confirmed', allowUntil: h.clock.now() + 60_000 });
    const sent = h.channel.sent.length;
    const again = await h.request();
    expect(again).toMatchObject({ outcome: 'confirmed', reason: 'standing_allowance', decidedBy: 'alice' });
    expect(h.channel.sent.length).toBe(sent);
    expect(await h.gate.authorize(again, ACTION)).toMatchObject({ ok: true });
    const other = await h.ask({ requester: 'bob' });
    expect(h.gate.pending()).toHaveLength(1); // bob's request is not covered by alice's allowance
    await h.channel.say('g1', 'bob', '取消');
    await other.decision;
    h.clock.advance(60_000);
    const later = await h.ask();
    expect(h.gate.pending()).toMatchObject([{ id: later.id }]);
  });

  it('grants an allowance from the always button', async () => {
    const h = await setup({ standingAllowanceMs: 60_000 });
    const { decision } = await h.ask();
    const value = h.channel.lastSent('g1')?.card?.buttons[2]?.value;
    await h.channel.click('g1', 'alice', value ?? null);
    expect(await decision).toMatchObject({ outcome: 'confirmed', reason: 'card' });
  });

  it('treats "always" as a plain confirmation when allowances are off', async () => {
    const h = await setup();
    const { decision } = await h.ask();
    await h.channel.say('g1', 'alice', 'always');
    const final = await decision;
    expect(final.outcome).toBe('confirmed');
    expect(final.allowUntil).toBeUndefined();
  });
});
