// The "Testing your agent with the fakes" guide. This file is a vitest test file: copy it next to
// your code as `bot.test.ts` and run `npx vitest`. (Parley's own suite runs it through
// tests/guides.test.ts.) Nothing here sleeps: time moves only when a test advances the clock.
// #region first-test
import { createMessageBus } from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import {
  assertNotSent,
  assertSent,
  createFakeChannel,
  createFakeClock,
  createFakePlatform,
  createRecordingTransport,
  createScriptedModel,
  expectOutbox,
} from '@parley/testing';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startBot } from './getting-started.js';

async function startTestBot() {
  const clock = createFakeClock({ now: Date.UTC(2026, 0, 1) }); // time moves only when told
  const channel = createFakeChannel({ channel: 'tg', clock }); // the chat platform, in memory
  const runs: number[] = [];
  const orders = { deleteCancelled: async () => runs.push(clock.now()) };
  const bot = await startBot({ adapter: channel, clock, orders });
  onTestFinished(() => bot.close());
  return { clock, channel, runs };
}

describe('the purge command', () => {
  it('deletes the cancelled orders after the requester replies 确认', async () => {
    const { clock, channel, runs } = await startTestBot();
    await channel.say('ops', 'alice', '/purge');
    await channel.waitForSent('以下操作需要确认', { chatId: 'ops' }); // the prompt
    expect(runs).toEqual([]); // nothing ran before the answer

    await channel.say('ops', 'alice', '确认');
    await channel.waitForSent('Deleted 1 cancelled orders.');
    expect(runs).toHaveLength(1);
    clock.assertNoPendingTimers(); // the confirmation's timeout was cleared
  });
});
// #endregion first-test

// #region refusals
describe('the purge command, answered otherwise', () => {
  it('does not count someone else’s 确认, and cancels on 取消', async () => {
    const { channel, runs } = await startTestBot();
    await channel.say('ops', 'alice', '/purge');
    await channel.waitForSent('以下操作需要确认');
    await channel.say('ops', 'mallory', '确认'); // not the requester: ignored, passed on to the bot
    await channel.say('ops', 'alice', '取消');
    await channel.waitForSent('Nothing deleted (cancelled).');
    expect(runs).toEqual([]);
    assertNotSent(channel, /Deleted \d/);
  });

  it('cancels when nobody answers within two minutes', async () => {
    const { clock, channel, runs } = await startTestBot();
    await channel.say('ops', 'alice', '/purge');
    await channel.waitForSent('以下操作需要确认');
    expect(clock.timers()).toMatchObject([{ delayMs: 120_000 }]);
    clock.advanceToNextTimer(); // two minutes pass at once
    await channel.waitForSent('Nothing deleted (timed_out).');
    assertSent(channel, /timed out/, { chatId: 'ops' }); // the gate told the chat
    expect(runs).toEqual([]);
  });

  it('runs on a click of the confirm button, by the requester only', async () => {
    const { channel, runs } = await startTestBot();
    await channel.say('ops', 'alice', '/purge');
    await channel.waitForSent('以下操作需要确认');
    expectOutbox(channel, { chatId: 'ops' }).toHaveButtons(['确认 Confirm', '取消 Cancel']);
    await channel.chat('ops').clickButton('mallory', /确认/); // refused: not the requester
    await channel.chat('ops').clickButton('alice', /确认/);
    await channel.waitForSent('Deleted 1 cancelled orders.');
    expect(runs).toHaveLength(1);
  });
});
// #endregion refusals

// #region model
import { type ModelOutput, type ModelRequest, startSupportAgent } from './support-agent.js';

async function startAgentUnderTest(model: (request: ModelRequest) => Promise<ModelOutput>) {
  const clock = createFakeClock();
  const bus = createMessageBus({ clock });
  const channel = createFakeChannel({ channel: 'feishu', clock });
  await bus.attach(channel);
  const gate = createConfirmGate({ bus, clock });
  const platform = createFakePlatform({ otherwise: 'success' }); // every target succeeds unless told
  const done = startSupportAgent({ bus, gate, model, platform });
  onTestFinished(async () => {
    await gate.close();
    await bus.close();
    await done;
  });
  return { channel, platform };
}

describe('the support agent', () => {
  it('asks before deleting what the model proposed, and reports a partial failure', async () => {
    const model = createScriptedModel<ModelOutput, ModelRequest>().reply({
      tool: 'delete_posts',
      urls: ['https://x.com/p/1', 'https://x.com/p/2'],
    });
    const { channel, platform } = await startAgentUnderTest(model);
    platform.failTarget('https://x.com/p/2', { code: 'rate_limited', retryable: true });

    await channel.say('g1', 'alice', 'please remove my two reposts');
    await channel.waitForSent('Delete 2 post(s)');
    expect(platform.calls).toHaveLength(0); // proposed, not run
    await channel.say('g1', 'alice', '确认');
    await channel.waitForSent('Deleted 1 of 2; failed: https://x.com/p/2 (rate_limited).');

    expect(platform.timesCompleted('https://x.com/p/1')).toBe(1);
    expect(model.requests).toEqual([{ text: 'please remove my two reposts', sender: 'alice' }]); // 确认 never reached it
    model.assertAllUsed();
  });

  it('answers without touching the platform when the model only replies, or fails', async () => {
    const model = createScriptedModel<ModelOutput, ModelRequest>()
      .reply({ reply: 'Which posts?' })
      .fail(new Error('model overloaded'));
    const { channel, platform } = await startAgentUnderTest(model);
    await channel.say('g1', 'alice', 'delete stuff');
    await channel.waitForSent('Which posts?');
    await channel.say('g1', 'alice', 'all of them');
    await channel.waitForSent('Something went wrong');
    expect(platform.calls).toEqual([]);
  });
});
// #endregion model

// #region transport
import { type CorrelateMessage, createCorrelator, planApprovalProtocol } from '@parley/correlate';

describe('plan approval between two agents', () => {
  it('times out when the reviewer answers after the deadline, and refuses the late answer', async () => {
    const clock = createFakeClock();
    const wire = createRecordingTransport<CorrelateMessage, 'lead' | 'reviewer'>({
      endpoints: ['lead', 'reviewer'],
      clock,
    });
    const options = { clock, protocols: [planApprovalProtocol] };
    const lead = createCorrelator({ ...options, self: 'lead', send: wire.endpoint('lead').send });
    const reviewer = createCorrelator({ ...options, self: 'reviewer', send: wire.endpoint('reviewer').send });
    onTestFinished(() => {
      lead.close();
      reviewer.close();
    });
    wire.endpoint('lead').listen((message) => lead.receive(message));
    wire.endpoint('reviewer').listen((message) => reviewer.receive(message));
    reviewer.on('request', ({ request }) => void reviewer.respond(request.id, { approve: true }));

    wire.delay(60_000, { from: 'reviewer' }); // the answer takes a minute
    const answer = lead.request(planApprovalProtocol, {
      to: 'reviewer',
      payload: { plan: 'Drop the legacy tables' },
      timeoutMs: 5_000,
    });
    await wire.flush();
    clock.advance(60_000);
    await expect(answer).rejects.toMatchObject({ code: 'timeout' });
    await wire.flush();
    expect(wire.records[1]?.deliveries[0]?.result).toMatchObject({ ok: false, code: 'late' });
    expect(lead.stats().refused).toEqual({ late: 1 });
  });
});
// #endregion transport
