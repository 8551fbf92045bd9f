import { afterEach, describe, expect, it } from 'vitest';
import type { ConfirmDecision } from '@parley/confirm';
import { restartResuming } from '../../../../tests/support/gate-bot.js';
import { ACTION, ALICE, type Bot, MALLORY, startBot } from './harness.js';

let bots: Bot[] = [];
afterEach(async () => {
  for (const bot of bots) await bot.close();
  await bots[0]?.feishu.close();
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
    const [prompt] = bot.feishu.sent;
    expect(bot.feishu.requests.find((r) => r.path === '/open-apis/im/v1/messages')?.query).toEqual({
      receive_id_type: 'chat_id',
    });
    expect(prompt).toMatchObject({ chatId: 'oc_ops_5d1e', msgType: 'interactive' });
    expect(prompt?.replyTo).toBeUndefined();
    const confirm = prompt?.buttons.find((b) => b.label.includes('确认'))?.value as Record<string, unknown>;
    expect(confirm['confirmation']).toMatch(/^cfm_\d+_1\.confirm\.[\w-]+$/);
    bot.clock.advance(2_000);
    const reply = await bot.feishu.message('确认', { mentionBot: true, eventId: 'ev-confirm-1' });
    const settled = await decision;
    expect(settled).toMatchObject({ outcome: 'confirmed', reason: 'reply', decidedBy: ALICE, reply: '确认' });
    let runs = 0;
    if ((await bot.gate.authorize(settled, ACTION)).ok) runs++;
    // Feishu delivers the same event again (no 200 seen in time): nothing changes.
    await reply.redeliver();
    if ((await bot.gate.authorize(settled, ACTION)).ok) runs++;
    expect(runs).toBe(1);
    expect(bot.bus.size.inbound).toBe(0);
  });

  it('refuses another member’s click and counts the requester’s signed click', async () => {
    const bot = await startBot();
    bots.push(bot);
    const { decision } = await begin(bot);
    bot.clock.advance(1_000);
    const other = await bot.feishu.click(/确认/, { user: MALLORY });
    expect(other.answer).toMatchObject({ toast: { type: 'info' } });
    expect(bot.refused).toMatchObject([{ code: 'not_allowed', senderId: MALLORY }]);
    expect(bot.gate.pending()).toHaveLength(1);
    const click = await bot.feishu.click(/确认/, { eventId: 'card-alice' });
    expect(await decision).toMatchObject({ outcome: 'confirmed', reason: 'card', decidedBy: ALICE });
    await click.redeliver(); // redelivered click
    expect(bot.refused).toHaveLength(1);
  });

  it('takes a click through the older card callback (CardActionHandler, signed request)', async () => {
    const bot = await startBot();
    bots.push(bot);
    const { decision } = await begin(bot);
    expect(await bot.feishu.subscribe({ events: bot.eventsUrl, cards: bot.cardsUrl })).toEqual({ ok: true });
    bot.clock.advance(500);
    const { answer } = await bot.feishu.click(/取消/);
    expect(answer).toEqual({ toast: { type: 'info', content: '已收到 Received' } });
    expect(await decision).toMatchObject({ outcome: 'cancelled', reason: 'card' });
  });

  it('refuses a click whose token was altered', async () => {
    const bot = await startBot();
    bots.push(bot);
    const { decision } = await begin(bot);
    const cancel = bot.feishu.sent[0]?.buttons.find((b) => b.label.includes('取消'))?.value;
    const token = (cancel as { confirmation: string }).confirmation;
    await bot.feishu.click(/取消/, { value: { confirmation: token.replace('.cancel.', '.confirm.') } });
    expect(bot.refused).toMatchObject([{ code: 'forged' }]);
    bot.clock.advance(300_000);
    expect(await decision).toMatchObject({ outcome: 'timed_out' });
  });

  it('keeps the pending confirmation across a restart and resumes it on the reply', async () => {
    const first = await startBot();
    bots.push(first);
    void begin(first);
    await first.nextPrompt().catch(() => undefined);
    const { bot: second, resumed } = await restartResuming(first);
    bots = [second];
    expect(second.gate.pending()).toMatchObject([{ restored: true, requester: ALICE }]);
    second.clock.advance(1_000);
    const decided = new Promise((resolve) => second.gate.on('decided', resolve));
    await second.feishu.message('确认', { mentionBot: true });
    await decided;
    expect(resumed).toMatchObject([{ outcome: 'confirmed', decidedBy: ALICE }]);
    expect(second.feishu.sent[0]?.msgType).toBe('interactive');
  });
});
