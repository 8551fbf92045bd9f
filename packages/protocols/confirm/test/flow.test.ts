import { describe, expect, it } from 'vitest';
import { ACTION, setup } from './helpers.js';

describe('the channel confirmation flow (seed)', () => {
  it('sends a prompt with the summary, 确认 and 取消 to the session', async () => {
    const h = await setup();
    await h.ask();
    const prompt = h.channel.lastSent('g1');
    expect(prompt?.text).toContain(ACTION.args.sql);
    expect(prompt?.text).toMatch(/确认.*取消/s);
    expect(prompt?.card?.buttons.map((b) => b.label)).toEqual(['确认 Confirm', '取消 Cancel']);
    expect(h.gate.pending()).toMatchObject([
      { sessionKey: 'feishu:g1', state: 'prompted', actionName: 'sql.delete' },
    ]);
  });

  it('confirms on 确认 from the requester, consumes the reply and authorises the action once', async () => {
    const h = await setup();
    const { decision } = await h.ask();
    const result = await h.channel.say('g1', 'alice', '确认');
    expect(result).toMatchObject({ status: 'intercepted', by: 'confirm' });
    const final = await decision;
    expect(final).toMatchObject({ outcome: 'confirmed', reason: 'reply', decidedBy: 'alice', reply: '确认' });
    expect(h.bus.size.inbound).toBe(0);
    expect(await h.gate.authorize(final, ACTION)).toMatchObject({ ok: true });
    expect(await h.gate.authorize(final, ACTION)).toEqual({ ok: false, code: 'already_used' });
    expect(h.clock.pendingTimers()).toBe(0);
    expect(h.gate.pending()).toEqual([]);
  });

  it('cancels on 取消 and refuses to authorise', async () => {
    const h = await setup();
    const { decision } = await h.ask();
    await h.channel.say('g1', 'alice', '取消');
    const final = await decision;
    expect(final).toMatchObject({ outcome: 'cancelled', reason: 'reply', decidedBy: 'alice' });
    expect(await h.gate.authorize(final, ACTION)).toEqual({ ok: false, code: 'not_confirmed' });
  });

  it('times out after five minutes of silence by default and says so', async () => {
    const h = await setup();
    const { decision } = await h.ask();
    h.clock.advance(299_999);
    expect(h.decided).toHaveLength(0);
    h.clock.advance(1);
    const final = await decision;
    expect(final).toMatchObject({ outcome: 'timed_out', reason: 'timeout' });
    expect(final.decidedBy).toBeUndefined();
    expect(h.clock.pendingTimers()).toBe(0);
    await Promise.resolve();
    expect(h.channel.lastSent('g1')?.text).toContain('超时');
    expect((await h.channel.say('g1', 'alice', 'hello')).status).toBe('queued'); // nothing pending any more
  });

  it('ignores 确认 from another session, which reaches that session’s agent', async () => {
    const h = await setup();
    await h.ask();
    expect((await h.channel.say('g2', 'alice', '确认')).status).toBe('queued');
    expect((await h.channel.say('g1', 'alice', '确认', { threadId: 't1' })).status).toBe('queued');
    expect(h.decided).toEqual([]);
    expect(h.gate.pending()).toHaveLength(1);
  });

  it('does not let a group member who is not the requester confirm; their reply goes to the agent', async () => {
    const h = await setup();
    const { decision } = await h.ask();
    expect((await h.channel.say('g1', 'mallory', '确认')).status).toBe('queued');
    expect(h.events.ignored).toMatchObject([{ code: 'not_allowed', senderId: 'mallory' }]);
    expect(h.decided).toEqual([]);
    await h.channel.say('g1', 'alice', '取消');
    expect((await decision).outcome).toBe('cancelled');
  });

  it('cancels on an unrecognised reply by default and consumes it', async () => {
    const h = await setup();
    const { decision } = await h.ask();
    expect((await h.channel.say('g1', 'alice', 'yes please don’t')).status).toBe('intercepted');
    expect(await decision).toMatchObject({ outcome: 'cancelled', reason: 'unrecognised' });
    expect(h.bus.size.inbound).toBe(0);
  });

  it('records every decision for audit', async () => {
    const h = await setup();
    const first = await h.ask();
    await h.channel.say('g1', 'alice', '确认');
    await first.decision;
    const second = await h.ask({ sessionKey: 'feishu:g2' });
    h.clock.advance(300_000);
    await second.decision;
    const audit = [];
    for await (const decision of h.gate.audit()) audit.push(decision);
    expect(audit.map((d) => [d.sessionKey, d.outcome, d.decidedBy ?? null]).sort()).toEqual([
      ['feishu:g1', 'confirmed', 'alice'],
      ['feishu:g2', 'timed_out', null],
    ]);
    expect(audit.every((d) => d.summary === ACTION.args.sql && d.decidedAt >= d.requestedAt)).toBe(true);
  });
});
