// Runs the code of every guide in guides/ (each sample in a guide is a region of one of these
// files), with assertions on what it prints and returns. Time is a manual clock throughout; the
// Redis guide also runs on a real redis-server on a free loopback port when one is installed.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { createServer, Socket } from 'node:net';
import { createMessageBus } from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import { createManualClock, createMemoryStore } from '@parley/core';
import { createFakeChannel } from '@parley/testing';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
// @ts-expect-error: a plain ESM script without type declarations
import { drifted, guideFiles } from '../scripts/guides.mjs';
import { main as gettingStarted, startBot } from '../guides/code/getting-started.js';
import {
  createTelegramApi,
  createTelegramBot,
  main as telegramMain,
  type TelegramApi,
  toInbound,
  toInlineKeyboard,
  toSendMessage,
} from '../guides/code/telegram-adapter.js';
import { confirmScenario, correlatorScenario, flowScenario } from '../guides/code/persistence.js';
import { main as postgresMain } from '../guides/code/postgres-replicas.js';
import { main as redisMain, twoReplicas } from '../guides/code/redis-replicas.js';
import {
  ALICE,
  BOT_USER_ID,
  channelPost,
  clickUpdate,
  editUpdate,
  GROUP_ID,
  MALLORY,
  OTHER_BOT,
  T0,
  textUpdate,
  topicUpdate,
} from '../guides/code/telegram-updates.js';
// The testing guide is itself a test file: importing it registers its tests here.
import '../guides/code/testing-with-fakes.js';
import { converse, type Platform, WIRING_TRANSCRIPTS } from './guides-wiring.js';

describe('guides as people read them (GitHub, an editor)', () => {
  it('show in each code sample exactly the code of the regions it names', () => {
    expect(drifted()).toEqual([]);
  });

  it('hold no typedoc tag that only the API site would render', () => {
    for (const guide of guideFiles() as string[]) {
      expect({ guide, tags: readFileSync(guide, 'utf8').match(/\{@\w+[^}]*\}/g) ?? [] }).toEqual({
        guide,
        tags: [],
      });
    }
  });
});

describe('guide: getting started', () => {
  it('answers another chat while one chat waits for its confirmation', async () => {
    const clock = createManualClock();
    const channel = createFakeChannel({ channel: 'demo', clock });
    const bot = await startBot({ adapter: channel, clock, orders: { deleteCancelled: async () => 1 } });
    onTestFinished(() => bot.close());
    await channel.say('ops', 'alice', '/purge');
    await channel.waitForSent('确认', { chatId: 'ops' });
    await channel.say('sales', 'bob', 'hi');
    const answer = await channel.waitForSent('/purge', { chatId: 'sales' });
    expect(answer.text).toBe('Send /purge to delete every cancelled order.');
    expect(bot.gate.pending().map((p) => p.sessionKey)).toEqual(['demo:ops']); // ops still waits for alice
  });

  it('confirms, cancels and times out, in that order, with the transcript it prints', async () => {
    const clock = createManualClock({ now: Date.UTC(2026, 0, 1) });
    const transcript = await gettingStarted(clock);
    // The prompt leads with the action name and the first 12 hex digits of its digest.
    const prompt = expect.stringMatching(
      /^bot: 以下操作需要确认：\[orders\.delete_cancelled · [0-9a-f]{12}\] DELETE FROM orders WHERE status = 'cancelled'$/,
    );
    expect(transcript).toEqual([
      'alice: /purge',
      prompt,
      'alice: 确认',
      'bot: Deleted 3 cancelled orders.',
      'alice: /purge',
      prompt,
      'alice: 取消',
      'bot: Nothing deleted (cancelled).',
      'alice: /purge',
      prompt,
      'bot: Nothing deleted (timed_out).',
    ]);
    expect(clock.pendingTimers()).toBe(0);
  });
});

/** A Bot API stand-in that records every call and answers like Telegram does. */
function recordingApi(): TelegramApi & { calls: { method: string; params: Record<string, unknown> }[] } {
  const calls: { method: string; params: Record<string, unknown> }[] = [];
  return {
    calls,
    async call(method, params) {
      calls.push({ method, params });
      return method === 'sendMessage' ? { message_id: 100 + calls.length } : true;
    },
  };
}

async function telegramHarness() {
  const clock = createManualClock({ now: T0 * 1000 });
  const api = recordingApi();
  const telegram = createTelegramBot({ api, botUserId: BOT_USER_ID, secretToken: 's3cret' });
  const runs: number[] = [];
  const bot = await startBot({
    adapter: telegram,
    clock,
    orders: { deleteCancelled: async () => runs.push(1) },
  });
  onTestFinished(() => bot.close());
  const post = (body: unknown) => telegram.handleWebhook({ body, secretToken: 's3cret' });
  /** Resolves once the bot has called sendMessage `count` times in all. */
  const sent = (count: number) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const check = (): void => {
        const calls = api.calls.filter((c) => c.method === 'sendMessage');
        const call = calls[count - 1];
        if (call !== undefined) resolve(call.params);
        else queueMicrotask(check);
      };
      check();
    });
  return { clock, api, telegram, bot, runs, post, sent };
}

describe('guide: wiring Parley into an existing bot (Telegram)', () => {
  it('maps a message update to an inbound message of its chat, sender and time', () => {
    expect(toInbound(textUpdate(900_000_057, '/purge') as never, BOT_USER_ID)).toMatchObject({
      chatId: String(GROUP_ID),
      senderId: String(ALICE.id),
      senderIsBot: false,
      fromSelf: false,
      text: '/purge',
      kind: 'message',
      eventId: `msg:${GROUP_ID}:57`,
      createdAt: (T0 + 5) * 1000,
    });
    expect(toInbound(topicUpdate(900_000_058, 'hi') as never, BOT_USER_ID)).toMatchObject({ threadId: '42' });
    expect(toInbound(editUpdate(900_000_059, 57, '/purge!') as never, BOT_USER_ID)).toMatchObject({
      kind: 'edit',
      eventId: 'edit:900000059',
      createdAt: (T0 + 9) * 1000,
    });
    expect(toInbound(textUpdate(900_000_060, 'hi', { from: OTHER_BOT }) as never, BOT_USER_ID)).toMatchObject(
      {
        senderIsBot: true,
        fromSelf: false,
      },
    );
    expect(
      toInbound(clickUpdate(900_000_061, '{"confirmation":"cfm_1.confirm"}') as never, BOT_USER_ID),
    ).toMatchObject({
      kind: 'card_action',
      action: { confirmation: 'cfm_1.confirm' },
      eventId: expect.stringMatching(/^callback:/),
    });
    expect(toInbound(clickUpdate(900_000_062, 'plain') as never, BOT_USER_ID)).toMatchObject({
      action: 'plain',
    });
  });

  it('renders text, thread, reply and buttons as sendMessage parameters, leaving out oversized buttons', () => {
    const base = { channel: 'telegram', sessionKey: 'telegram:-100', createdAt: 0 };
    expect(
      toSendMessage({
        ...base,
        chatId: String(GROUP_ID),
        threadId: '42',
        text: 'OK?',
        replyTo: `msg:${GROUP_ID}:57`,
        card: { buttons: [{ label: 'Yes', value: { c: 'y' } }] },
      }),
    ).toEqual({
      chat_id: GROUP_ID,
      text: 'OK?',
      message_thread_id: 42,
      reply_parameters: { message_id: 57 },
      reply_markup: { inline_keyboard: [[{ text: 'Yes', callback_data: '{"c":"y"}' }]] },
    });
    expect(
      toSendMessage({
        ...base,
        chatId: '5',
        text: '',
        replyTo: 'msg:6:1',
        card: { title: 'T', body: 'B', buttons: [] },
      }),
    ).toEqual({
      chat_id: 5,
      text: 'T\nB',
    });
    expect(toInlineKeyboard({ buttons: [{ label: 'big', value: 'x'.repeat(63) }] })).toEqual([]);
  });

  it('fits the gate’s unsigned buttons in callback_data and leaves out signed ones (64-byte limit)', async () => {
    const sizes: number[][] = [];
    for (const secret of [undefined, 'replica-secret']) {
      const bus = createMessageBus();
      const gate = createConfirmGate({ bus, ...(secret && { secret }) });
      void gate.request({ sessionKey: 'telegram:1', requester: 'u', action: { name: 'x' }, summary: 'x' });
      const prompt = await bus.receiveOutbound();
      const card = prompt.card ?? { buttons: [] };
      sizes.push(card.buttons.map((b) => new TextEncoder().encode(JSON.stringify(b.value)).length));
      expect(toInlineKeyboard(card)).toHaveLength(secret === undefined ? 2 : 0);
      await gate.close();
      await bus.close();
    }
    expect(sizes[0]?.every((n) => n <= 52)).toBe(true);
    expect(sizes[1]?.every((n) => n > 64)).toBe(true);
  });

  it('guards the purge behind a Telegram prompt whose inline button confirms it', async () => {
    const { api, post, sent, runs } = await telegramHarness();
    expect(await post(textUpdate(900_000_057, '/purge'))).toEqual({ status: 200, outcome: 'queued' });
    const prompt = await sent(1);
    expect(prompt).toMatchObject({ chat_id: GROUP_ID, text: expect.stringContaining('以下操作需要确认') });
    const keyboard = (prompt.reply_markup as { inline_keyboard: { text: string; callback_data: string }[][] })
      .inline_keyboard[0];
    expect(keyboard?.map((b) => b.text)).toEqual(['确认 Confirm', '取消 Cancel']);
    const confirm = keyboard?.[0]?.callback_data as string;

    expect(await post(clickUpdate(900_000_060, confirm, MALLORY))).toEqual({
      status: 200,
      outcome: 'intercepted',
    });
    expect(await post(clickUpdate(900_000_061, confirm))).toEqual({ status: 200, outcome: 'intercepted' });
    expect(await sent(2)).toMatchObject({ text: 'Deleted 1 cancelled orders.' });
    expect(runs).toEqual([1]);
    expect(api.calls.filter((c) => c.method === 'answerCallbackQuery')).toHaveLength(2);
  });

  it('takes a typed 确认 once: a redelivered update, an edit and another bot are dropped', async () => {
    const { post, sent, runs } = await telegramHarness();
    await post(textUpdate(900_000_057, '/purge'));
    await sent(1);
    expect(await post(textUpdate(900_000_058, '确认', { from: OTHER_BOT }))).toMatchObject({
      outcome: 'intercepted',
    });
    expect(await post(editUpdate(900_000_059, 57, '确认'))).toMatchObject({ outcome: 'intercepted' });
    expect(runs).toEqual([]);
    expect(await post(textUpdate(900_000_060, '确认'))).toMatchObject({
      status: 200,
      outcome: 'intercepted',
    });
    expect(await sent(2)).toMatchObject({ text: 'Deleted 1 cancelled orders.' });
    expect(await post(textUpdate(900_000_060, '确认'))).toMatchObject({
      status: 200,
      outcome: 'intercepted',
    });
    await post(textUpdate(900_000_061, '/purge'));
    await sent(3); // a new prompt: the redelivered 确认 above confirmed nothing
    expect(runs).toEqual([1]);
  });

  it('answers bad, foreign and unauthenticated requests without throwing', async () => {
    const { telegram, post, api } = await telegramHarness();
    expect(await telegram.handleWebhook({ body: textUpdate(1, '/purge') })).toEqual({
      status: 401,
      outcome: 'bad_secret',
    });
    for (const body of [null, 'text', 42, { update_id: 'x' }, { update_id: 1, message: { chat: {} } }]) {
      expect(await post(body)).toEqual({ status: 200, outcome: 'malformed' });
    }
    expect(await post(channelPost)).toEqual({ status: 200, outcome: 'unsupported' });
    const inline = clickUpdate(7, 'x');
    const { message: _, ...query } = inline.callback_query;
    expect(await post({ update_id: 7, callback_query: query })).toEqual({
      status: 200,
      outcome: 'unsupported',
    });
    expect(api.calls).toEqual([]);
    const detached = createTelegramBot({ api, botUserId: BOT_USER_ID });
    expect(await detached.handleWebhook({ body: textUpdate(1, 'hi') })).toEqual({
      status: 503,
      outcome: 'not_attached',
    });
  });

  it('asks Telegram to redeliver when the bus is closed, and reports a failed answerCallbackQuery', async () => {
    const errors: unknown[] = [];
    const api: TelegramApi = { call: async () => Promise.reject(new Error('429')) };
    const telegram = createTelegramBot({ api, botUserId: BOT_USER_ID, onError: (e) => errors.push(e) });
    const bus = createMessageBus();
    await bus.attach(telegram);
    expect(await telegram.handleWebhook({ body: clickUpdate(5, 'x') })).toEqual({
      status: 200,
      outcome: 'queued',
    });
    expect(errors).toMatchObject([{ message: '429' }]);
    const sent = await bus.publishOutbound({ channel: 'telegram', chatId: '1', text: 'hi' });
    expect(sent).toMatchObject({ status: 'rejected', code: 'send_failed' });
    const full = createMessageBus({ capacity: 1 }); // nobody consumes: the second update does not fit
    const busy = createTelegramBot({ api, botUserId: BOT_USER_ID });
    await full.attach(busy);
    expect(await busy.handleWebhook({ body: textUpdate(6, 'a') })).toEqual({
      status: 200,
      outcome: 'queued',
    });
    expect(await busy.handleWebhook({ body: textUpdate(7, 'b') })).toEqual({
      status: 503,
      outcome: 'queue_full',
    });
    await bus.close();
    await full.close();
    expect(await telegram.handleWebhook({ body: textUpdate(8, 'hi') })).toEqual({
      status: 503,
      outcome: 'not_attached',
    });
  });

  it('calls the Bot API over HTTPS with the token and surfaces ok: false', async () => {
    const requests: { url: string; body: unknown }[] = [];
    const fakeFetch = (async (url: string, init: RequestInit) => {
      requests.push({ url, body: JSON.parse(String(init.body)) });
      const ok = requests.length === 1;
      return new Response(
        JSON.stringify(
          ok ? { ok, result: { message_id: 1 } } : { ok, description: 'Bad Request: chat not found' },
        ),
      );
    }) as typeof fetch;
    const api = createTelegramApi('123:abc', fakeFetch);
    expect(await api.call('sendMessage', { chat_id: 1, text: 'hi' })).toEqual({ message_id: 1 });
    await expect(api.call('sendMessage', { chat_id: 2, text: 'hi' })).rejects.toThrow('chat not found');
    expect(requests[0]).toEqual({
      url: 'https://api.telegram.org/bot123:abc/sendMessage',
      body: { chat_id: 1, text: 'hi' },
    });
  });

  it('serves the webhook over node:http end to end', async () => {
    const calls: { url: string; body: Record<string, unknown> }[] = [];
    let called: () => void = () => {};
    const firstCall = new Promise<void>((resolve) => {
      called = resolve;
    });
    const fakeFetch = (async (url: string, init: RequestInit) => {
      calls.push({ url, body: JSON.parse(String(init.body)) });
      called();
      return new Response(JSON.stringify({ ok: true, result: true }));
    }) as typeof fetch;
    const clock = createManualClock({ now: T0 * 1000 });
    const server = await telegramMain({
      token: `${BOT_USER_ID}:test`,
      secretToken: 'hook',
      port: 0,
      fetch: fakeFetch,
      clock,
    });
    onTestFinished(() => server.close());
    const postJson = (body: string, secret = 'hook') =>
      new Promise<[number | undefined, unknown]>((resolve, reject) => {
        const headers = { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': secret };
        const req = request(server.url, { method: 'POST', headers, agent: false }, (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => {
            text += chunk.toString();
          });
          res.on('end', () => resolve([res.statusCode, JSON.parse(text)]));
        });
        req.on('error', reject);
        req.end(body);
      });
    expect(await postJson(JSON.stringify(textUpdate(900_000_057, 'hello')))).toEqual([
      200,
      { outcome: 'queued' },
    ]);
    expect(await postJson('{not json')).toEqual([200, { outcome: 'malformed' }]);
    expect(await postJson('{}', 'wrong')).toEqual([401, { outcome: 'bad_secret' }]);
    await firstCall; // the bot's answer to "hello"
    expect(calls).toHaveLength(1);
    expect(calls[0]?.body).toMatchObject({ chat_id: GROUP_ID, text: expect.stringContaining('/purge') });
    await expect(telegramMain({ token: 'nope' })).rejects.toThrow('TELEGRAM_BOT_TOKEN');
  });
});

describe('guide: persisting and resuming', () => {
  it('keeps a step flow in the store between answers and refuses a tampered record', async () => {
    expect(await flowScenario()).toEqual([
      'How much, in euros?',
      'amount: Too big: expected number to be <=500',
      'Type YES to refund.',
      'Not confirmed: how much, in euros?', // `back` to the amount step
      'Type YES to refund.',
      'Your refund could not be resumed (invalid_snapshot); please start again.',
      'undefined', // the refused record was deleted
    ]);
  });

  it('lets a restarted correlator take over the pending request and run its handler', async () => {
    expect(await correlatorScenario()).toEqual([
      'first instance: closed',
      'restored 1 pending request(s)',
      'run the plan (backups checked)',
      'state: approved',
    ]);
  });

  it('finishes a confirmation answered after a restart through the resume handler', async () => {
    const log = await confirmScenario();
    expect(log).toEqual([
      'pending after restart: orders.delete_cancelled restored=true',
      expect.stringMatching(/^resumed cfm_\S+: confirmed by alice$/),
      'bot: Deleted the cancelled orders.',
    ]);
  });
});

const REPLICA_LOG = [
  'B follows: tg:ops delivered=true, holds 0',
  'reply on B: intercepted',
  "A's decision: confirmed by alice",
  'A authorizes: true',
  'B authorizes again: already_used',
];
/** The handler runs on B, which settles; A hears it through the store, in either order. */
const REPLICA_TAIL = ["A's plan approval: approved", 'B ran the handler: approved'];

describe('guide: several replicas', () => {
  it('settles on replica A what reaches replica B, on a shared memory store', async () => {
    const clock = createManualClock();
    const store = createMemoryStore({ clock });
    const log = await twoReplicas([store, store], clock);
    expect(log.slice(0, 5)).toEqual(REPLICA_LOG);
    expect(log.slice(5).sort()).toEqual(REPLICA_TAIL);
  });

  it('settles the same way on two Postgres stores sharing one embedded PGlite database', async () => {
    const log = await postgresMain(undefined, createManualClock());
    expect(log.slice(0, 5)).toEqual(REPLICA_LOG);
    expect(log.slice(5).sort()).toEqual(REPLICA_TAIL);
  });

  describe.runIf(hasRedis())('on a real redis-server', () => {
    let url: string | undefined;
    beforeAllRedis((started) => {
      url = started;
    });

    it('settles on replica A what reaches replica B, each on its own connection', async () => {
      const log = await redisMain(url);
      expect(log.slice(0, 5)).toEqual(REPLICA_LOG);
      expect(log.slice(5).sort()).toEqual(REPLICA_TAIL);
    });
  });
});

function hasRedis(): boolean {
  try {
    execFileSync(process.env.REDIS_SERVER ?? 'redis-server', ['--version'], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}

/** Starts redis-server on a free loopback port (no persistence) for the enclosing describe. */
function beforeAllRedis(ready: (url: string) => void): void {
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    const port = await new Promise<number>((resolve, reject) => {
      const probe = createServer();
      probe.once('error', reject);
      probe.listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number }; // a TCP listener
        probe.close(() => resolve(port));
      });
    });
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
    const proc = spawn(process.env.REDIS_SERVER ?? 'redis-server', args, { stdio: 'ignore' });
    child = proc;
    const deadline = Date.now() + 30_000;
    while (!(await ping(port))) {
      if (proc.exitCode !== null || Date.now() > deadline)
        throw new Error(`redis-server did not start on ${port}`);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    ready(`redis://127.0.0.1:${port}`);
  });
  afterAll(async () => {
    const proc = child;
    if (proc === undefined || proc.exitCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGKILL');
    await exited;
  });
}

/** One PING on a fresh socket; false until the server answers (each try waits on the socket, not a timer). */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('error', () => done(false));
    socket.once('data', (chunk) => done(chunk.toString().startsWith('+PONG')));
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
  });
}

describe('guide: add Parley to your grammY, Bolt or Feishu bot (each program run against a stand-in)', () => {
  const ROOT = join(import.meta.dirname, '..');
  const FILES: Record<Platform, string> = {
    telegram: 'guides/code/wiring-grammy.ts',
    slack: 'guides/code/wiring-bolt.ts',
    feishu: 'guides/code/wiring-feishu.ts',
  };
  it.each(['telegram', 'slack', 'feishu'] as const)(
    '%s: confirms once, refuses another member, hands off the rest',
    async (platform) => {
      const program = {
        command: join(ROOT, 'node_modules', '.bin', 'tsx'),
        args: [FILES[platform]],
        cwd: ROOT,
      };
      expect(await converse(platform, program)).toEqual(WIRING_TRANSCRIPTS[platform]);
    },
    60_000,
  );
});
