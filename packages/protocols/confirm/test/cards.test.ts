import { describe, expect, it } from 'vitest';
import { ACTION, buttonToken, setup } from './helpers.js';

describe('card clicks', () => {
  it('confirms by confirmation id from the requester’s click, consuming the click', async () => {
    const h = await setup();
    const { decision } = await h.ask();
    const result = await h.channel.click('g1', 'alice', { confirmation: buttonToken(h.channel, 'confirm') });
    expect(result.status).toBe('intercepted');
    expect(await decision).toMatchObject({ outcome: 'confirmed', reason: 'card', decidedBy: 'alice' });
    expect(h.bus.size.inbound).toBe(0);
  });

  it('cancels from the cancel button', async () => {
    const h = await setup();
    const { decision } = await h.ask();
    await h.channel.click('g1', 'alice', { confirmation: buttonToken(h.channel, 'cancel') });
    expect(await decision).toMatchObject({ outcome: 'cancelled', reason: 'card' });
  });

  it('refuses a click from a user who may not confirm, and keeps waiting', async () => {
    const h = await setup();
    const { decision } = await h.ask();
    await h.channel.click('g1', 'mallory', { confirmation: buttonToken(h.channel, 'confirm') });
    expect(h.events.refused).toMatchObject([{ code: 'not_allowed', senderId: 'mallory', id: 'cfm_1' }]);
    expect(h.decided).toEqual([]);
    h.clock.advance(300_000);
    expect((await decision).outcome).toBe('timed_out');
  });

  it('refuses a click from a bot', async () => {
    const h = await setup({ approvers: 'any' });
    await h.ask();
    await h.channel.click(
      'g1',
      'bot',
      { confirmation: buttonToken(h.channel, 'confirm') },
      { senderIsBot: true },
    );
    expect(h.events.refused).toMatchObject([{ code: 'not_allowed' }]);
  });

  it('refuses a click for a settled confirmation', async () => {
    const h = await setup();
    const { decision } = await h.ask();
    const token = buttonToken(h.channel, 'confirm');
    await h.channel.say('g1', 'alice', '取消');
    await decision;
    await h.channel.click('g1', 'alice', { confirmation: token });
    expect(h.events.refused).toMatchObject([{ code: 'settled', id: 'cfm_1' }]);
    expect(h.decided).toHaveLength(1);
  });

  it('refuses a click for an unknown id and a malformed token as forged', async () => {
    const h = await setup();
    await h.ask();
    await h.channel.click('g1', 'alice', { confirmation: 'cfm_999.confirm' });
    await h.channel.click('g1', 'alice', { confirmation: 'cfm_1.launch' });
    await h.channel.click('g1', 'alice', { confirmation: 'cfm_1.confirm.extra' });
    await h.channel.click('g1', 'alice', { confirmation: '' });
    expect(h.events.refused.map((e) => e.code)).toEqual([
      'unknown_confirmation',
      'forged',
      'forged',
      'forged',
    ]);
    expect(h.decided).toEqual([]);
  });

  it('refuses a click from another chat', async () => {
    const h = await setup();
    await h.ask();
    await h.channel.click('g2', 'alice', { confirmation: buttonToken(h.channel, 'confirm') });
    expect(h.events.refused).toMatchObject([{ code: 'session_mismatch' }]);
  });

  it('refuses a click for a queued confirmation that has not been prompted', async () => {
    const h = await setup();
    await h.ask();
    const wait = h.nextQueued();
    void h.gate.request({ sessionKey: 'feishu:g1', action: ACTION, summary: 'second', requester: 'alice' });
    const { id } = await wait;
    await h.channel.click('g1', 'alice', { confirmation: `${id}.confirm` });
    expect(h.events.refused).toMatchObject([{ code: 'unknown_confirmation', id }]);
  });

  it('lets other card actions through to the agent', async () => {
    const h = await setup();
    await h.ask();
    expect((await h.channel.click('g1', 'alice', { vote: 'up' })).status).toBe('queued');
    expect((await h.channel.click('g1', 'alice', 'plain')).status).toBe('queued');
    expect((await h.channel.click('g1', 'alice', { confirmation: 5 })).status).toBe('queued');
  });

  it('sends no card when cards are off', async () => {
    const h = await setup({ cards: false });
    await h.ask();
    expect(h.channel.lastSent('g1')?.card).toBeUndefined();
  });
});

describe('signed card tokens', () => {
  it('accepts a token signed with the host secret', async () => {
    const h = await setup({ secret: 'host-secret' });
    const { decision } = await h.ask();
    const token = buttonToken(h.channel, 'confirm');
    expect(token.split('.')).toHaveLength(3);
    await h.channel.click('g1', 'alice', { confirmation: token });
    expect((await decision).outcome).toBe('confirmed');
  });

  it('refuses an unsigned, re-targeted or tampered token as forged', async () => {
    const h = await setup({ secret: new TextEncoder().encode('host-secret') });
    const { decision } = await h.ask();
    const [id, , signature] = buttonToken(h.channel, 'cancel').split('.');
    for (const confirmation of [
      `${id}.confirm`,
      `${id}.confirm.${signature}`,
      `${id}.cancel.${signature}x`,
      `${id}.cancel.!!`,
      `${id}.cancel.A`,
    ]) {
      await h.channel.click('g1', 'alice', { confirmation });
    }
    expect(h.events.refused.map((e) => e.code)).toEqual(['forged', 'forged', 'forged', 'forged', 'forged']);
    await h.channel.click('g1', 'alice', { confirmation: `${id}.cancel.${signature}` });
    expect((await decision).outcome).toBe('cancelled');
  });

  it('lets another replica on the same store settle a click it verifies', async () => {
    const a = await setup({ secret: 's' });
    const b = await a.restart({ secret: 's' });
    const { decision, id } = await a.ask();
    const token = buttonToken(a.channel, 'confirm');
    const decidedOnB = new Promise((resolve) => b.gate.on('decided', resolve));
    await b.channel.click('g1', 'alice', { confirmation: token });
    await decidedOnB;
    expect(b.decided).toMatchObject([{ id, outcome: 'confirmed', reason: 'card' }]);
    expect(await a.gate.reconcile(id)).toMatchObject({ outcome: 'confirmed' });
    expect(await decision).toMatchObject({ outcome: 'confirmed', decidedBy: 'alice' });
    expect(await a.gate.authorize(id, ACTION)).toMatchObject({ ok: true });
    expect(await b.gate.reconcile('cfm_none')).toBeUndefined();
  });
});
