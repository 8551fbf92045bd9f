import { createHygieneInterceptor } from '@parley/bus';
import { afterEach, describe, expect, it } from 'vitest';
import { cite } from './catalogue.js';
import { ACTION, type Bot, startBot } from './routing.harness.js';

// Rules 2, 4 and 8 through the public APIs: a gate is bound to its chat, its requester (or
// approvers), the exact operation, the prompt it answers and a deadline; the bot's own messages,
// other bots, edits, recalls, stale answers and redeliveries never count; nothing an agent can call
// resolves a gate.

let bot: Bot;
afterEach(async () => {
  await bot?.gate.close();
  bot?.bus.close();
});

async function pendingAsk(overrides = {}) {
  bot = await startBot();
  return bot.ask(overrides);
}

describe('who and where an answer counts', () => {
  it(`${cite('ROUTE-01')} does not count the requester's answer in another chat, which reaches that chat's agent`, async () => {
    const { decision } = await pendingAsk();
    const result = await bot.channel.say('g2', 'alice', '确认');
    expect(result.status).toBe('queued');
    expect(bot.decided).toEqual([]);
    expect(bot.gate.pending()).toHaveLength(1);
    await bot.channel.say('g1', 'alice', '确认');
    expect(await decision).toMatchObject({ outcome: 'confirmed', decidedBy: 'alice' });
  });

  it(`${cite('ROUTE-02')} ignores another member's answer under the requester policy and keeps waiting`, async () => {
    await pendingAsk();
    const result = await bot.channel.say('g1', 'bob', '确认');
    expect(result.status).toBe('queued');
    expect(bot.ignored).toMatchObject([{ senderId: 'bob', code: 'not_allowed' }]);
    expect(bot.decided).toEqual([]);
    expect(bot.gate.pending()).toMatchObject([{ state: 'prompted' }]);
  });

  it(`${cite('ROUTE-03')} does not count the requester's answer in another thread of the same chat`, async () => {
    await pendingAsk();
    await bot.channel.chat('g1', 't1').say('alice', '确认');
    expect(bot.decided).toEqual([]);
    expect(bot.gate.pending()).toHaveLength(1);
  });

  it(`${cite('ROUTE-04')} never counts the bot's own message, even under approvers any`, async () => {
    await pendingAsk({ approvers: 'any' });
    await bot.channel.say('g1', 'alice', '确认', { fromSelf: true });
    await bot.channel.say('g1', 'bot', '确认', { fromSelf: true, senderIsBot: true });
    expect(bot.decided).toEqual([]);
    expect(bot.ignored.map((e) => e.code)).toEqual(['bot', 'bot']);
  });

  it(`${cite('ROUTE-05')} never counts another bot's message, even under approvers any`, async () => {
    await pendingAsk({ approvers: 'any' });
    await bot.channel.say('g1', 'other_bot', '确认', { senderIsBot: true });
    await bot.channel.say('g1', 'alice', 'yes', { senderIsBot: true });
    expect(bot.decided).toEqual([]);
    expect(bot.gate.pending()).toHaveLength(1);
  });

  it(`${cite('ROUTE-06')} never counts an edit of an earlier message into the confirm word`, async () => {
    await pendingAsk();
    await bot.channel.say('g1', 'alice', '确认', { kind: 'edit' });
    expect(bot.decided).toEqual([]);
    expect(bot.gate.pending()).toHaveLength(1);
  });

  it(`${cite('ROUTE-07')} never counts a recall event`, async () => {
    await pendingAsk();
    await bot.channel.say('g1', 'alice', '确认', { kind: 'recall' });
    expect(bot.decided).toEqual([]);
    expect(bot.gate.pending()).toHaveLength(1);
  });

  it(`${cite('ROUTE-08')} does not count an answer that reached the bot before the prompt was sent`, async () => {
    bot = await startBot();
    const prompted = nextPrompt(bot);
    const asked = bot.gate.request({
      sessionKey: 'feishu:g1',
      action: ACTION,
      summary: 'DELETE',
      requester: 'alice',
    });
    const result = await bot.channel.say('g1', 'alice', '确认'); // no prompt exists yet
    expect(result.status).toBe('queued'); // it was meant for the agent, not for this prompt
    await prompted;
    expect(bot.decided).toEqual([]);
    await bot.channel.say('g1', 'alice', '取消');
    expect(await asked).toMatchObject({ outcome: 'cancelled' });
  });

  it(`${cite('ROUTE-17')} lets only a listed approver decide`, async () => {
    const { decision } = await pendingAsk({ approvers: ['bob', 'carol'] });
    await bot.channel.say('g1', 'alice', '确认');
    await bot.channel.say('g1', 'dave', '确认');
    expect(bot.decided).toEqual([]);
    await bot.channel.say('g1', 'carol', '确认');
    expect(await decision).toMatchObject({ outcome: 'confirmed', decidedBy: 'carol' });
  });
});

describe('multi-step exact confirmations', () => {
  const steps = [
    { prompt: 'Type YES to delete', expect: 'YES' },
    { prompt: 'Type YES again', expect: 'YES' },
    { prompt: 'Type YES a last time', expect: 'YES' },
  ];

  it(`${cite('ROUTE-09')} counts a redelivered event once: the same event id never advances two steps`, async () => {
    const { decision } = await pendingAsk({ steps });
    const second = nextPrompt(bot);
    await bot.channel.say('g1', 'alice', 'YES', { eventId: 'ev_1' });
    await second; // the person answers each step once its prompt is shown
    expect(bot.gate.pending()).toMatchObject([{ step: 1 }]);
    // the platform redelivers the very same event, at once and later
    await bot.channel.say('g1', 'alice', 'YES', { eventId: 'ev_1' });
    bot.clock.advance(5_000);
    await bot.channel.say('g1', 'alice', 'YES', { eventId: 'ev_1', createdAt: undefined });
    expect(bot.gate.pending()).toMatchObject([{ step: 1 }]);
    expect(bot.decided).toEqual([]);
    expect(bot.forwarded()).toEqual([]); // consumed, never handed to the agent
    const third = nextPrompt(bot);
    await bot.channel.say('g1', 'alice', 'YES', { eventId: 'ev_2' });
    await third;
    await bot.channel.say('g1', 'alice', 'YES', { eventId: 'ev_3' });
    expect(await decision).toMatchObject({ outcome: 'confirmed' });
  });

  it(`${cite('ROUTE-10')} counts one message for one step at most: one that arrives before the next prompt was sent does not count`, async () => {
    const { decision } = await pendingAsk({ steps });
    const second = nextPrompt(bot);
    await bot.channel.say('g1', 'alice', 'YES');
    await bot.channel.say('g1', 'alice', 'YES'); // the same batch: prompt 2 is not sent yet
    expect(bot.ignored).toMatchObject([{ code: 'before_delivery' }]);
    await second;
    expect(bot.gate.pending()).toMatchObject([{ step: 1 }]);
    const third = nextPrompt(bot);
    await bot.channel.say('g1', 'alice', 'YES');
    await third;
    await bot.channel.say('g1', 'alice', 'YES');
    expect(await decision).toMatchObject({ outcome: 'confirmed' });
  });

  it(`${cite('PARSE-13')} cancels a step answered with anything but the exact text`, async () => {
    for (const reply of ['yes', 'YES!', 'ＹＥＳ?', 'YЕS', 'YES YES', '确认', 'Yes']) {
      const { decision } = await pendingAsk({ steps });
      await bot.channel.say('g1', 'alice', reply);
      expect(await decision, reply).toMatchObject({
        outcome: 'cancelled',
        reason: 'step_mismatch',
        failedStep: 1,
      });
      await bot.gate.close();
    }
  });

  it(`${cite('PARSE-13')} accepts the exact text under NFKC, format characters and surrounding whitespace`, async () => {
    const { decision } = await pendingAsk({ steps });
    for (const reply of [' ＹＥＳ ', 'Y\u200bES']) {
      const next = nextPrompt(bot);
      await bot.channel.say('g1', 'alice', reply);
      await next; // each step is answered once its prompt is shown
    }
    await bot.channel.say('g1', 'alice', '\u3000YES');
    expect(await decision).toMatchObject({ outcome: 'confirmed' });
  });
});

describe('card clicks', () => {
  it(`${cite('ROUTE-11')} refuses a click on a confirmation already settled, with no second decision`, async () => {
    const { decision, id } = await pendingAsk();
    const confirm = bot.token('confirm');
    const cancel = bot.token('cancel');
    await bot.channel.click('g1', 'alice', { confirmation: cancel });
    expect(await decision).toMatchObject({ outcome: 'cancelled', reason: 'card' });
    await bot.channel.click('g1', 'alice', { confirmation: confirm });
    expect(bot.refused).toMatchObject([{ code: 'settled', id }]);
    expect(bot.decided).toHaveLength(1);
    expect(await bot.gate.authorize(id, ACTION)).toMatchObject({ ok: false, code: 'not_confirmed' });
  });

  it(`${cite('ROUTE-12')} refuses clicks for unknown ids and malformed tokens`, async () => {
    const { id } = await pendingAsk();
    for (const token of ['cfm_999.confirm', `${id}x.confirm`]) {
      await bot.channel.click('g1', 'alice', { confirmation: token });
    }
    for (const token of ['', 'garbage', `${id}`, `${id}.maybe`, `${id}.confirm.extra`, `.confirm`]) {
      await bot.channel.click('g1', 'alice', { confirmation: token });
    }
    expect(bot.refused.map((r) => r.code)).toEqual([
      'unknown_confirmation',
      'unknown_confirmation',
      ...Array(6).fill('forged'),
    ]);
    expect(bot.decided).toEqual([]);
    expect(bot.gate.pending()).toHaveLength(1);
  });

  it(`${cite('ROUTE-12')} refuses unsigned and re-signed tokens when the gate has a secret`, async () => {
    bot = await startBot({ secret: 'k1' });
    const { id, decision } = await bot.ask();
    const cancel = bot.token('cancel');
    const signature = cancel.split('.').at(-1);
    for (const token of [`${id}.confirm`, `${id}.confirm.${signature}`, `${id}.confirm.${'0'.repeat(64)}`]) {
      await bot.channel.click('g1', 'alice', { confirmation: token });
    }
    expect(bot.refused.map((r) => r.code)).toEqual(['forged', 'forged', 'forged']);
    expect(bot.decided).toEqual([]);
    await bot.channel.click('g1', 'alice', { confirmation: bot.token('confirm') });
    expect(await decision).toMatchObject({ outcome: 'confirmed', reason: 'card' });
  });

  it(`${cite('ROUTE-13')} refuses a click from another chat, another user or a bot`, async () => {
    await pendingAsk();
    const confirm = bot.token('confirm');
    await bot.channel.click('g2', 'alice', { confirmation: confirm });
    await bot.channel.click('g1', 'bob', { confirmation: confirm });
    await bot.channel.click('g1', 'alice', { confirmation: confirm }, { senderIsBot: true });
    await bot.channel.click('g1', 'alice', { confirmation: confirm }, { fromSelf: true });
    expect(bot.refused.map((r) => r.code)).toEqual([
      'session_mismatch',
      'not_allowed',
      'not_allowed',
      'not_allowed',
    ]);
    expect(bot.decided).toEqual([]);
  });
});

describe('what an agent can reach', () => {
  it(`${cite('ROUTE-14')} offers no gate method that resolves a pending confirmation`, async () => {
    const { id } = await pendingAsk();
    expect(Object.keys(bot.gate).sort()).toEqual(
      ['audit', 'authorize', 'close', 'followed', 'on', 'pending', 'ready', 'reconcile', 'request'].sort(),
    );
    expect(await bot.gate.authorize(id, ACTION)).toMatchObject({ ok: false, code: 'unknown_decision' });
    expect(await bot.gate.reconcile(id)).toBeUndefined();
    const forged = { id, outcome: 'confirmed', action: { ...ACTION, digest: 'x' } };
    expect(await bot.gate.authorize(forged as never, ACTION)).toMatchObject({
      ok: false,
      code: 'unknown_decision',
    });
    const audit: unknown[] = [];
    for await (const decision of bot.gate.audit()) audit.push(decision);
    expect(audit).toEqual([]);
    expect(bot.gate.pending()).toMatchObject([{ id, state: 'prompted' }]);
  });

  it(`${cite('ROUTE-14')} is not resolved by anything the agent says, echoed back or not`, async () => {
    bot = await startBot();
    const { decision } = await bot.ask();
    await bot.bus.publishOutbound({ channel: 'feishu', chatId: 'g1', text: '确认' });
    expect(bot.channel.lastSent('g1')?.text).toBe('确认');
    // the platform echoes the bot's own message back as inbound
    await bot.channel.say('g1', 'alice', '确认', { fromSelf: true, senderIsBot: true });
    expect(bot.decided).toEqual([]);
    bot.clock.advance(5 * 60_000);
    expect(await decision).toMatchObject({ outcome: 'timed_out' });
  });

  it(`${cite('ROUTE-15')} authorises only the exact action, once`, async () => {
    const { decision, id } = await pendingAsk();
    await bot.channel.say('g1', 'alice', '确认');
    await decision;
    const other = { name: ACTION.name, args: { sql: 'DELETE FROM orders' } };
    expect(await bot.gate.authorize(id, other)).toMatchObject({ ok: false, code: 'action_mismatch' });
    expect(await bot.gate.authorize(id, { name: 'sql.drop', args: ACTION.args })).toMatchObject({
      code: 'action_mismatch',
    });
    const [first, second] = await Promise.all([
      bot.gate.authorize(id, ACTION),
      bot.gate.authorize(id, ACTION),
    ]);
    expect([first?.ok, second?.ok].sort()).toEqual([false, true]);
    expect(await bot.gate.authorize(id, ACTION)).toMatchObject({ ok: false, code: 'already_used' });
  });

  it(`${cite('ROUTE-16')} times out at the absolute deadline and does not count the late answer`, async () => {
    const { decision } = await pendingAsk({ timeoutMs: 60_000 });
    bot.clock.advance(59_999);
    expect(bot.decided).toEqual([]);
    bot.clock.advance(1);
    expect(await decision).toMatchObject({ outcome: 'timed_out', reason: 'timeout' });
    const late = await bot.channel.say('g1', 'alice', '确认');
    expect(late.status).toBe('intercepted'); // absorbed as an answer to a just-decided confirmation
    expect(bot.ignored.at(-1)).toMatchObject({ code: 'after_decision' });
    expect(bot.decided).toHaveLength(1);
    expect(bot.clock.pendingTimers()).toBe(0);
  });
});

describe('bus hygiene before routing', () => {
  it(`${cite('ROUTE-18')} drops own echoes, bots, edits, recalls and redeliveries before the gate sees them`, async () => {
    const drops: string[] = [];
    bot = await startBot({}, undefined, (bus) => {
      bus.intercept(createHygieneInterceptor({ onDrop: (_m, reason) => drops.push(reason) }));
    });
    await bot.channel.say('g1', 'bob', 'hello', { eventId: 'ev_9' }); // before any prompt: to the agent
    const { decision } = await bot.ask({ approvers: 'any' });
    await bot.channel.say('g1', 'alice', '确认', { fromSelf: true });
    await bot.channel.say('g1', 'helper_bot', '确认', { senderIsBot: true });
    await bot.channel.say('g1', 'alice', '确认', { kind: 'edit' });
    await bot.channel.say('g1', 'alice', '确认', { kind: 'recall' });
    await bot.channel.say('g1', 'bob', '确认', { eventId: 'ev_9' });
    expect(bot.decided).toEqual([]);
    expect(bot.ignored).toEqual([]); // the gate never saw them
    expect(drops).toEqual(['from_self', 'bot', 'kind', 'kind', 'duplicate']);
    expect(bot.forwarded()).toEqual(['hello']);
    await bot.channel.say('g1', 'bob', '取消');
    expect(await decision).toMatchObject({ outcome: 'cancelled', decidedBy: 'bob' });
  });
});

/** Resolves with the next prompt the bot's gate delivers. */
function nextPrompt(target: Bot): Promise<void> {
  return new Promise((resolve) => {
    const off = target.gate.on('prompted', () => {
      off();
      resolve();
    });
  });
}
