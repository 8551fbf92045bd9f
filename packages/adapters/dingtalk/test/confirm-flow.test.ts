import { afterEach, describe, expect, it, vi } from 'vitest';
import { TOPIC_CARD, TOPIC_ROBOT } from 'dingtalk-stream';
import type { ConfirmDecision } from '@parley/confirm';
import { restartResuming } from '../../../../tests/support/gate-bot.js';
import { ACTION, ALICE, type Bot, GROUP, MALLORY, startBot, TEMPLATE } from './harness.js';

let bots: Bot[] = [];
afterEach(async () => {
  for (const bot of bots) await bot.close();
  await bots[0]?.dingtalk.close();
  bots = [];
  vi.restoreAllMocks();
});

async function started(): Promise<Bot> {
  vi.spyOn(console, 'info').mockImplementation(() => undefined); // DWClient announces each connect
  const bot = await startBot();
  bots.push(bot);
  return bot;
}

async function begin(bot: Bot): Promise<{ decision: Promise<ConfirmDecision> }> {
  const prompted = bot.nextPrompt();
  const decision = bot.gate.request({
    sessionKey: `dingtalk:${GROUP}`,
    action: ACTION,
    summary: ACTION.args.sql,
    requester: ALICE,
  });
  await prompted;
  return { decision }; // not the promise itself: an async function would wait for it
}

describe('the channel-confirmation flow on DingTalk (stream mode)', () => {
  it('opens the stream through the gateway with the robot and card subscriptions', async () => {
    const bot = await started();
    expect(bot.dingtalk.gateway[0]?.body).toMatchObject({
      clientId: 'dingq7xbm2kz4frsel0n',
      subscriptions: expect.arrayContaining([
        { type: 'CALLBACK', topic: TOPIC_ROBOT },
        { type: 'CALLBACK', topic: TOPIC_CARD },
      ]),
    });
  });

  it('sends the prompt as an interactive card and executes once on the requester’s 确认', async () => {
    const bot = await started();
    const { decision } = await begin(bot);
    const [card] = bot.dingtalk.sent;
    expect(card).toMatchObject({
      path: '/v1.0/card/instances/createAndDeliver',
      body: {
        cardTemplateId: TEMPLATE,
        callbackType: 'STREAM',
        openSpaceId: `dtv1.card//IM_GROUP.${GROUP}`,
        imGroupOpenDeliverModel: { robotCode: 'dingq7xbm2kz4frsel0n' },
      },
    });
    expect(card?.kind).toBe('card');
    expect(JSON.parse(card?.buttons[0]?.value ?? '')).toEqual({
      confirmation: expect.stringMatching(/^cfm_\d+_1\.confirm\.[\w-]+$/),
    });
    bot.clock.advance(2_000);
    const reply = bot.dingtalk.robotMessage(' 确认', { msgId: 'msgConfirm1==' });
    const first = bot.dingtalk.push(TOPIC_ROBOT, reply);
    expect((await first.acked).code).toBe(200);
    const settled = await decision;
    expect(settled).toMatchObject({ outcome: 'confirmed', reason: 'reply', decidedBy: ALICE, reply: '确认' });
    let runs = 0;
    if ((await bot.gate.authorize(settled, ACTION)).ok) runs++;
    // DingTalk pushes the same message again (a new frame, the same msgId): nothing changes.
    await bot.dingtalk.push(TOPIC_ROBOT, reply).acked;
    if ((await bot.gate.authorize(settled, ACTION)).ok) runs++;
    expect(runs).toBe(1);
    expect(bot.bus.size.inbound).toBe(0);
  });

  it('refuses another member’s click, counts the requester’s, and acknowledges both', async () => {
    const bot = await started();
    const { decision } = await begin(bot);
    bot.clock.advance(1_000);
    const other = bot.dingtalk.click(/确认/, { user: MALLORY });
    expect(await other.acked).toMatchObject({ code: 200, data: '{"response":{}}' });
    expect(bot.refused).toMatchObject([{ code: 'not_allowed', senderId: MALLORY }]);
    expect(bot.gate.pending()).toHaveLength(1);
    const frame = bot.dingtalk.click(/确认/);
    await frame.acked;
    expect(await decision).toMatchObject({ outcome: 'confirmed', reason: 'card', decidedBy: ALICE });
    await frame.redeliver().acked; // the same callback pushed again
    expect(bot.refused).toHaveLength(1);
  });

  it('keeps the pending confirmation across a restart and resumes it on the reply', async () => {
    const first = await started();
    void begin(first);
    await first.nextPrompt().catch(() => undefined);
    const { bot: second, resumed } = await restartResuming(first);
    bots = [second];
    expect(second.gate.pending()).toMatchObject([{ restored: true, requester: ALICE }]);
    second.clock.advance(1_000);
    const decided = new Promise((resolve) => second.gate.on('decided', resolve));
    await second.dingtalk.message('确认').acked;
    await decided;
    expect(resumed).toMatchObject([{ outcome: 'confirmed', decidedBy: ALICE }]);
    expect(second.dingtalk.gateway).toHaveLength(2);
  });
});
