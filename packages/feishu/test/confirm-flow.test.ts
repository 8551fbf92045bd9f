import { afterEach, describe, expect, it } from 'vitest';
import type { ConfirmDecision } from '@parley/confirm';
import {
  ALICE,
  BOT,
  cardEvent,
  encrypted,
  legacyCardCallback,
  MALLORY,
  mentionReply,
  signedCard,
} from './events.js';
import { ACTION, type Bot, buttonValue, startBot } from './harness.js';

let bots: Bot[] = [];
afterEach(async () => {
  for (const bot of bots) await bot.close();
  await bots[0]?.api.close();
  bots = [];
});

async function begin(bot: Bot): Promise<{ decision: Promise<ConfirmDecision>; sentAt: number }> {
  const prompted = bot.nextPrompt();
  const decision = bot.gate.request({
    sessionKey: 'feishu:oc_ops_5d1e',
    action: ACTION,
    summary: ACTION.args.sql,
    requester: ALICE,
  });
  await prompted;
  return { decision, sentAt: bot.clock.now() };
}

describe('the channel-confirmation flow on Feishu', () => {
  it('sends the prompt as an interactive card and executes once on the requester’s @bot 确认', async () => {
    const bot = await startBot();
    bots.push(bot);
    const { decision } = await begin(bot);
    const [prompt] = bot.api.messages();
    expect(prompt).toMatchObject({
      path: '/open-apis/im/v1/messages',
      query: { receive_id_type: 'chat_id' },
    });
    expect(prompt?.body).toMatchObject({ receive_id: 'oc_ops_5d1e', msg_type: 'interactive' });
    expect(buttonValue(prompt as never, /确认/)['confirmation']).toMatch(/^cfm_\d+_1\.confirm\.[\w-]+$/);
    bot.clock.advance(2_000);
    const reply = mentionReply('确认', { at: bot.clock.now(), eventId: 'ev-confirm-1' });
    await bot.post('/webhook/event', encrypted(reply));
    const settled = await decision;
    expect(settled).toMatchObject({ outcome: 'confirmed', reason: 'reply', decidedBy: ALICE, reply: '确认' });
    let runs = 0;
    if ((await bot.gate.authorize(settled, ACTION)).ok) runs++;
    // Feishu delivers the same event again (no 200 seen in time): nothing changes.
    await bot.post('/webhook/event', encrypted(reply));
    if ((await bot.gate.authorize(settled, ACTION)).ok) runs++;
    expect(runs).toBe(1);
    expect(bot.bus.size.inbound).toBe(0);
  });

  it('refuses another member’s click and counts the requester’s signed click', async () => {
    const bot = await startBot();
    bots.push(bot);
    const { decision } = await begin(bot);
    const prompt = bot.api.messages()[0] as never;
    const confirm = buttonValue(prompt, /确认/);
    bot.clock.advance(1_000);
    const answer = await bot.post(
      '/webhook/event',
      encrypted(cardEvent(confirm, { operator: MALLORY, messageId: 'om_sent_1', at: bot.clock.now() })),
    );
    expect(answer).toMatchObject({ toast: { type: 'info' } });
    expect(bot.refused).toMatchObject([{ code: 'not_allowed', senderId: MALLORY }]);
    expect(bot.gate.pending()).toHaveLength(1);
    const click = cardEvent(confirm, { messageId: 'om_sent_1', at: bot.clock.now(), eventId: 'card-alice' });
    await bot.post('/webhook/event', encrypted(click));
    expect(await decision).toMatchObject({ outcome: 'confirmed', reason: 'card', decidedBy: ALICE });
    await bot.post('/webhook/event', encrypted(click)); // redelivered click
    expect(bot.refused).toHaveLength(1);
  });

  it('takes a click through the older card callback (CardActionHandler, signed request)', async () => {
    const bot = await startBot();
    bots.push(bot);
    const { decision } = await begin(bot);
    const cancel = buttonValue(bot.api.messages()[0] as never, /取消/);
    bot.clock.advance(500);
    const answer = await bot.post(
      '/webhook/card',
      signedCard(legacyCardCallback(cancel, { messageId: 'om_sent_1' })),
    );
    expect(answer).toEqual({ toast: { type: 'info', content: '已收到 Received' } });
    expect(await decision).toMatchObject({ outcome: 'cancelled', reason: 'card' });
  });

  it('refuses a click whose token was altered', async () => {
    const bot = await startBot();
    bots.push(bot);
    const { decision } = await begin(bot);
    const token = buttonValue(bot.api.messages()[0] as never, /取消/)['confirmation'] as string;
    const forged = { confirmation: token.replace('.cancel.', '.confirm.') };
    await bot.post(
      '/webhook/event',
      encrypted(cardEvent(forged, { messageId: 'om_sent_1', at: bot.clock.now() })),
    );
    expect(bot.refused).toMatchObject([{ code: 'forged' }]);
    bot.clock.advance(300_000);
    expect(await decision).toMatchObject({ outcome: 'timed_out' });
  });

  it('keeps the pending confirmation across a restart and resumes it on the reply', async () => {
    const first = await startBot();
    bots.push(first);
    void begin(first);
    await first.nextPrompt().catch(() => undefined);
    const resumed: ConfirmDecision[] = [];
    const second = await first.restart({
      resume: { [ACTION.name]: (decision) => void resumed.push(decision) },
    });
    bots = [second];
    expect(second.gate.pending()).toMatchObject([{ restored: true, requester: ALICE }]);
    second.clock.advance(1_000);
    const decided = new Promise((resolve) => second.gate.on('decided', resolve));
    await second.post('/webhook/event', encrypted(mentionReply('确认', { at: second.clock.now() })));
    await decided;
    expect(resumed).toMatchObject([{ outcome: 'confirmed', decidedBy: ALICE }]);
    expect(second.api.messages()[0]?.body['msg_type']).toBe('interactive');
    expect(BOT).toBe('ou_bot_7f3a');
  });
});
