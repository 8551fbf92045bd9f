import { describe, expect, it } from 'vitest';
import { buttonToken, setup, YES3 } from './helpers.js';

describe('exact multi-step confirmation', () => {
  it('confirms after three exact YES replies, prompting each step in turn', async () => {
    const h = await setup();
    const { decision } = await h.ask({ steps: YES3 });
    expect(h.channel.lastSent('g1')?.text).toBe(YES3[0]?.prompt);
    expect(h.channel.lastSent('g1')?.card).toBeUndefined();
    for (const [index, step] of YES3.entries()) {
      expect(h.channel.lastSent('g1')?.text).toBe(step.prompt);
      const next = h.nextPrompt();
      await h.channel.say('g1', 'alice', 'YES');
      if (index < YES3.length - 1) expect(await next).toMatchObject({ step: index + 1, reprompt: false });
    }
    expect(await decision).toMatchObject({ outcome: 'confirmed', reason: 'reply', reply: 'YES' });
  });

  it.each([
    ['yes', 1],
    ['YES!', 1],
    ['确认', 1],
  ])('blocks on %j and reports step %i as failed', async (reply, failedStep) => {
    const h = await setup();
    const { decision } = await h.ask({ steps: YES3 });
    await h.channel.say('g1', 'alice', reply);
    expect(await decision).toMatchObject({ outcome: 'cancelled', reason: 'step_mismatch', failedStep });
  });

  it('reports the step that failed after earlier steps passed', async () => {
    const h = await setup();
    const { decision } = await h.ask({ steps: YES3 });
    const next = h.nextPrompt();
    await h.channel.say('g1', 'alice', 'YES');
    await next;
    await h.channel.say('g1', 'alice', 'NO');
    expect(await decision).toMatchObject({ outcome: 'cancelled', failedStep: 2, reply: 'NO' });
  });

  it('counts one message for at most one step', async () => {
    const h = await setup();
    const { decision } = await h.ask({ steps: YES3 });
    const second = h.nextPrompt();
    await h.channel.say('g1', 'alice', 'YES');
    await second;
    expect(h.gate.pending()).toMatchObject([{ step: 1 }]);
    const third = h.nextPrompt();
    await h.channel.say('g1', 'alice', 'YES');
    await third;
    await h.channel.say('g1', 'alice', 'YES');
    expect((await decision).outcome).toBe('confirmed');
  });

  it('accepts a full-width ＹＥＳ, which is the same text after NFKC', async () => {
    const h = await setup();
    const { decision } = await h.ask({ steps: [{ prompt: 'Confirm (YES)', expect: 'YES' }] });
    await h.channel.say('g1', 'alice', 'ＹＥＳ');
    expect((await decision).outcome).toBe('confirmed');
  });

  it('refuses a card click for a multi-step confirmation', async () => {
    const h = await setup();
    const first = await h.ask();
    const token = buttonToken(h.channel, 'confirm');
    await h.channel.say('g1', 'alice', '取消');
    await first.decision;
    const { id } = await h.ask({ steps: YES3 });
    await h.channel.click('g1', 'alice', { confirmation: `${id}.confirm` });
    expect(h.events.refused).toMatchObject([{ code: 'steps_required', id }]);
    expect(token).not.toContain(id);
  });

  it('counts a redelivered platform event once: the same event id never advances a second step', async () => {
    const h = await setup();
    const { decision } = await h.ask({ steps: YES3 });
    const second = h.nextPrompt();
    await h.channel.say('g1', 'alice', 'YES', { eventId: 'ev_1' });
    await second;
    await h.channel.say('g1', 'alice', 'YES', { eventId: 'ev_1' }); // the platform delivers it again
    expect(h.gate.pending()).toMatchObject([{ step: 1 }]);
    expect(h.events.ignored).toMatchObject([{ code: 'stale_reply', senderId: 'alice' }]);
    const third = h.nextPrompt();
    await h.channel.say('g1', 'alice', 'YES', { eventId: 'ev_2' });
    await third;
    await h.channel.say('g1', 'alice', 'YES', { eventId: 'ev_3' });
    expect(await decision).toMatchObject({ outcome: 'confirmed' });
  });
});
