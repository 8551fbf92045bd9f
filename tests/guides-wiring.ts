// Runs a program of the guide "Add Parley to your grammY, Bolt or Feishu bot" (guides/code/wiring-*.ts)
// as a reader runs it, in its own process, with the platform pointed at a stand-in on 127.0.0.1 through
// the environment variables the guide reads (the library's documented base-URL option), and plays
// the confirmation as the platform would deliver it: a /purge, another member's click on 确认
// (refused: the requester's 取消 that follows cancels), then a second /purge that the requester
// confirms, a repeated click, and a message that the bot's own handler answers. Returns what the
// bot sent, in order. The updates, events and signatures are the adapter suites' own
// (packages/*/test), in the shapes the platforms document. Mallory's ordinary message after her
// click is also the barrier that orders the click before the requester's 取消: grammY polls one
// update at a time, the Feishu webhook answers after the event was handled, and Bolt acks a click
// just before the adapter hands it to the bus, well before a later request is read.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { createManualClock, systemClock } from '@parley/core';
import { createFeishuStandIn, type FeishuSentMessage } from '@parley/feishu/testing';
import {
  ALICE as SLACK_ALICE,
  MALLORY as SLACK_MALLORY,
  CHANNEL as SLACK_CHANNEL,
} from '../packages/adapters/slack/test/helpers.js';
import { createSlackStandIn, type SlackDelivery } from '@parley/slack/testing';
import {
  GROUP as TG_GROUP,
  ALICE as TG_ALICE,
  MALLORY as TG_MALLORY,
} from '../packages/adapters/telegram/test/helpers.js';
import { createTelegramStandIn } from '@parley/telegram/testing';
import { expect } from 'vitest';

export type Platform = 'telegram' | 'slack' | 'feishu';

/** How to start a wiring program: e.g. `node_modules/.bin/tsx telegram.ts` in the reader's project. */
export interface Program {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
}

interface Running {
  /** Resolves once the program printed its ready line; rejects if it exits first. */
  readonly ready: Promise<void>;
  /** Everything the program printed so far, for a failing test's message. */
  output(): string;
  stop(): Promise<void>;
}

/** Starts the program; its `ready` resolves once it printed `ready` (it is listening or polling). */
function start(program: Program, env: Record<string, string>, ready: string): Running {
  const child = spawn(program.command, [...program.args], {
    cwd: program.cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const started = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
      if (printed.includes(ready)) resolve();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
    });
    child.once('exit', (code) => reject(new Error(`${program.args.join(' ')} exited (${code})`)));
  });
  return {
    ready: started,
    output: () => printed,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await closed;
    },
  };
}

/** A free TCP port on loopback for a program that listens. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }; // a TCP listener
      probe.close(() => resolve(port));
    });
  });
}

/**
 * How long one step of a conversation may take: well under the test's own timeout, so a program
 * that never answers fails with the step it was waiting for and what it printed, not a bare timeout.
 */
const STEP_MS = 30_000;

/** `promise`, or a rejection naming `what` once {@link STEP_MS} passed without it settling. */
function within<T>(what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no ${what} within ${STEP_MS} ms`)), STEP_MS);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Runs `play` against the started program and stops it (and the stand-in) whatever happens. */
async function session(
  program: Program,
  env: Record<string, string>,
  ready: string,
  close: () => Promise<void>,
  play: () => Promise<string[]>,
): Promise<string[]> {
  let running: Running | undefined;
  try {
    running = start(program, env, ready);
    await within(`"${ready}" from the program`, running.ready);
    return await play();
  } catch (error) {
    throw new Error(`${String(error)}\n--- the program printed:\n${running?.output() ?? ''}`);
  } finally {
    await running?.stop();
    await close();
  }
}

interface Button {
  readonly text: string;
  readonly callback_data: string;
}

async function telegram(program: Program): Promise<string[]> {
  const api = await createTelegramStandIn({ user: TG_ALICE, chat: TG_GROUP });
  const env = { BOT_TOKEN: api.token, TELEGRAM_API_ROOT: api.url };
  const sent = async (count: number): Promise<string[]> => {
    const call = await within(`sendMessage #${count}`, api.waitFor('sendMessage', count));
    const markup = call.params['reply_markup'] as { inline_keyboard: Button[][] } | undefined;
    return (markup?.inline_keyboard[0] ?? []).map((b) => b.callback_data);
  };
  // A click goes to the last card the bot sent; an update is confirmed once grammY handled it.
  const handled = async (what: string, delivery: Promise<{ ok: boolean }>): Promise<void> => {
    if (!(await within(what, delivery)).ok) throw new Error(`${what} was not delivered`);
  };
  return session(
    program,
    env,
    'is running',
    () => api.close(),
    async () => {
      void api.message('/purge');
      const first = await sent(1);
      await handled("Mallory's click", api.click(first[0] ?? '', { from: TG_MALLORY })); // refused: Mallory did not ask
      void api.message('hello', { from: TG_MALLORY });
      await sent(2); // the bot's own handler answered
      void api.click(first[1] ?? ''); // 取消
      await sent(3);
      void api.message('/purge');
      const second = await sent(4);
      await handled('the click on 确认', api.click(second[0] ?? '')); // 确认
      await sent(5);
      void api.click(second[0] ?? ''); // clicked twice
      void api.message('hello', { from: TG_MALLORY });
      await sent(6);
      return api.calls('sendMessage').map((call) => String(call.params['text']));
    },
  );
}

interface SlackButton {
  readonly action_id: string;
  readonly value: string;
}

async function slack(program: Program): Promise<string[]> {
  const api = await createSlackStandIn({ user: SLACK_ALICE, channel: SLACK_CHANNEL });
  const port = await freePort();
  const env = {
    SLACK_BOT_TOKEN: api.token,
    SLACK_SIGNING_SECRET: api.signingSecret,
    SLACK_API_URL: api.url,
    PORT: String(port),
  };
  api.setRequestUrl(`http://127.0.0.1:${port}/slack/events`);
  const delivered = async (what: string, delivery: Promise<SlackDelivery>): Promise<void> => {
    const result = await within(what, delivery);
    if (!result.ok) throw new Error(`${what}: ${result.message}`);
  };
  const say = (text: string, user: string) =>
    delivered(`"${text}" from ${user}`, api.message(text, { user }));
  const click = (button: SlackButton | undefined, user: string) =>
    delivered(`a click from ${user}`, api.click(button?.value ?? '', { user }));
  const posted = async (count: number): Promise<SlackButton[]> => {
    const { params } = await within(`chat.postMessage #${count}`, api.waitFor('chat.postMessage', count));
    const blocks = (params['blocks'] ?? []) as { type: string; elements?: SlackButton[] }[];
    return blocks.find((block) => block.type === 'actions')?.elements ?? [];
  };
  return session(
    program,
    env,
    'is running',
    () => api.close(),
    async () => {
      await say('purge', SLACK_ALICE);
      const first = await posted(1);
      await click(first[0], SLACK_MALLORY); // refused: Mallory did not ask
      await say('hello', SLACK_MALLORY);
      await posted(2);
      await click(first[1], SLACK_ALICE); // 取消
      await posted(3);
      await say('purge', SLACK_ALICE);
      const second = await posted(4);
      await click(second[0], SLACK_ALICE); // 确认
      await posted(5);
      await click(second[0], SLACK_ALICE); // clicked twice
      await say('hello', SLACK_MALLORY);
      await posted(6);
      return api.calls('chat.postMessage').map((call) => String(call.params['text']));
    },
  );
}

const FEISHU_ALICE = 'ou_alice_2b91';
const FEISHU_MALLORY = 'ou_mallory_6c04';

async function feishu(program: Program): Promise<string[]> {
  // The exported stand-in (@parley/feishu/testing), on a clock moved 1 s before each update, so
  // every event is written after the message before it.
  const clock = createManualClock({ now: systemClock.now() });
  const api = await createFeishuStandIn({ clock, botOpenId: 'ou_bot_7f3a', userOpenId: FEISHU_ALICE });
  const port = await freePort();
  const env = {
    FEISHU_APP_ID: api.appId,
    FEISHU_APP_SECRET: api.appSecret,
    FEISHU_DOMAIN: api.url,
    FEISHU_ENCRYPT_KEY: api.encryptKey,
    FEISHU_BOT_OPEN_ID: api.botOpenId,
    PORT: String(port),
  };
  const delivered = async (delivery: Promise<{ status: number; answer: unknown }>): Promise<void> => {
    const { status, answer } = await delivery;
    if (status !== 200) throw new Error(`the webhook answered ${status}: ${String(answer)}`);
  };
  const say = (text: string, sender: string, mention = false) => {
    clock.advance(1_000);
    return delivered(api.message(text, { sender, mentionBot: mention }));
  };
  const sent = (count: number): Promise<FeishuSentMessage> =>
    within(`message #${count}`, api.waitForSent(count));
  return session(
    program,
    env,
    'is listening',
    () => api.close(),
    async () => {
      const subscribed = await api.subscribe({ events: `http://127.0.0.1:${port}/webhook/event` });
      if (!subscribed.ok) throw new Error(subscribed.message);
      await say('/purge', FEISHU_ALICE);
      await sent(1);
      clock.advance(1_000);
      await delivered(api.click(/确认/, { user: FEISHU_MALLORY })); // refused
      await say('hello', FEISHU_MALLORY);
      await sent(2);
      await say('取消', FEISHU_ALICE, true);
      await sent(3);
      await say('/purge', FEISHU_ALICE);
      await sent(4);
      clock.advance(1_000);
      const reply = await api.message('确认', { sender: FEISHU_ALICE, mentionBot: true }); // as a group reply arrives
      await sent(5);
      await delivered(reply.redeliver()); // Feishu delivers it again
      await say('hello', FEISHU_MALLORY);
      await sent(6);
      return api.sent.map((message) => message.text);
    },
  );
}

/** Plays the confirmation against the program's platform; resolves to what the bot sent, in order. */
export function converse(platform: Platform, program: Program): Promise<string[]> {
  if (platform === 'telegram') return telegram(program);
  if (platform === 'slack') return slack(program);
  return feishu(program);
}

/** The prompt the confirm gate sends for getting-started's purge, as each platform shows its text. */
const PROMPT = expect.stringContaining("DELETE FROM orders WHERE status = 'cancelled'");

/** What each wiring program sends in `converse`'s conversation: the bot's own handler's answer in between. */
export const WIRING_TRANSCRIPTS: Readonly<Record<Platform, readonly unknown[]>> = {
  telegram: wiringTranscript('Got another message!'),
  slack: wiringTranscript('Hey there!'),
  feishu: wiringTranscript('Got it.'),
};

function wiringTranscript(yours: string): readonly unknown[] {
  return [
    PROMPT,
    yours, // Mallory's click was refused; her message went to the bot's own handler
    'Nothing deleted (cancelled).',
    PROMPT,
    'Deleted 3 cancelled orders.', // once: the repeated click or redelivered reply changed nothing
    yours,
  ];
}
