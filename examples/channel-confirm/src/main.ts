// The CLI. By default it runs every scripted scenario on a real embedded Postgres (PGlite) with
// simulated time and prints the transcript. `--interactive`: you are alice in the group chat
// (type `/help`); the model stays scripted, time is real. `--scenario=<name>` runs one scenario;
// `--tour` (what `npm run demo` passes) runs the four that show the most. `--platform <name>`:
// the same bot on Telegram, Feishu, DingTalk or Slack for real (credentials: see the README).
// `--console` (with --interactive, the default then, or --platform): @parley/console over the bot's
// store and consent ledger on a free loopback port; its URL is printed first.
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { type RunningConsole, startConsole } from '@parley/console';
import { createMemoryStore, type Store, systemClock } from '@parley/core';
import { createLedger, type Ledger } from '@parley/ledger';
import { createFakeChannel, createProgress, createTranscript, runChatRepl } from '@parley/testing';
import { formatShop, openDatabase, readShop, resetShop, type SqlDatabase } from './database.js';
import { createDriver } from './driver.js';
import { createPlatformHost, PLATFORMS, type Platform } from './platforms.js';
import { CHANNEL, GROUP_CHAT, runChannelConfirm } from './run.js';
import { ALICE, SCENARIO_NAMES, type ScenarioName } from './scenarios.js';
import { createShopBot } from './wiring.js';

const { values: args } = parseArgs({
  options: {
    scenario: { type: 'string' },
    platform: { type: 'string' },
    interactive: { type: 'boolean' },
    console: { type: 'boolean' },
    tour: { type: 'boolean' },
    verbose: { type: 'boolean' }, // passed by `npm run demo -- --verbose`: every scenario runs anyway
  },
});

const TRY = `You are ${ALICE} in the group chat ${GROUP_CHAT}. Type a message, or a command (/help).
Try: 查一下未完成的订单 · 删除 3 号订单 · 把 2 号订单标记为 paid · 给 customer 列建索引 · sql: …`;

/**
 * With `--console`: the bot's store and a consent ledger over it, and the console showing both on
 * a free loopback port. Without: nothing (the bot keeps a memory store of its own).
 */
async function withConsole(): Promise<{ store?: Store; ledger?: Ledger; running?: RunningConsole }> {
  if (args.console !== true) return {};
  const store = createMemoryStore({ clock: systemClock });
  const ledger = createLedger({ store, clock: systemClock });
  const running = await startConsole({ store, clock: systemClock, refreshSeconds: 5 });
  console.log(`console: ${running.url} (what waits for whom, what was decided, the consent ledger)`);
  return { store, ledger, running };
}

/** A fresh orders table in a new PGlite, and a transcript on the terminal in real time. */
async function openShop() {
  console.log('Starting PGlite (Postgres in WebAssembly)…');
  const db = await openDatabase();
  await resetShop(db);
  return { db, transcript: createTranscript({ clock: systemClock, output: (line) => console.log(line) }) };
}

/** You are alice in the group chat: @parley/testing's chat REPL on the fake channel, real time. */
async function interactive(): Promise<void> {
  const { running, ...shared } = await withConsole();
  const { db, transcript } = await openShop();
  const { log } = transcript;
  const progress = createProgress({ stallMs: 10 * 60_000 });
  const channel = createFakeChannel({ channel: CHANNEL, clock: systemClock, echo: true });
  const bot = await createShopBot({
    db,
    channel,
    clock: systemClock,
    log,
    onProgress: progress.poke,
    ...shared,
  });
  const driver = createDriver({ bot: () => bot, channel, chatId: GROUP_CHAT, progress, log });
  console.log(`${TRY}\n\n${formatShop(await readShop(db))}\n`);
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  rl.setPrompt(`${ALICE}> `);
  try {
    // The async iterator buffers lines, so piped input works as well as typing; it ends on Ctrl-D.
    await runChatRepl({
      lines: rl,
      driver,
      user: ALICE,
      print: (text) => console.log(text),
      help: '  /table                 show the orders table as the database has it',
      commands: { table: () => showTable(db) },
      settle: driver.idle,
      prompt: () => rl.prompt(),
    });
  } finally {
    rl.close();
    await bot.close();
    await db.close();
    await running?.close();
  }
}

/** The bot on a real platform until Ctrl-C: the scripted model, real time, a fresh orders table. */
async function onRealPlatform(name: Platform): Promise<void> {
  const host = createPlatformHost(name); // throws first when a variable is missing
  const { running, ...shared } = await withConsole();
  const { db, transcript } = await openShop();
  const bot = await createShopBot({
    db,
    channel: host.adapter,
    clock: systemClock,
    log: transcript.log,
    ...shared,
  });
  await host.start();
  console.log(`On ${name}: write to the bot (e.g. 删除 3 号订单), then 确认 or 取消. Ctrl-C stops.`);
  await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
  await host.stop();
  await bot.close();
  await db.close();
  await running?.close();
}

/** The orders table as the database has it, or why it cannot be read (e.g. after a confirmed DROP TABLE). */
async function showTable(db: SqlDatabase): Promise<string> {
  try {
    return formatShop(await readShop(db));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return `(the orders table cannot be read: ${reason}; /quit and start again for a fresh table)`;
  }
}

/** The scenarios `npm run demo` shows: a confirmed DELETE, who may confirm, two chats, a restart. */
const TOUR: readonly ScenarioName[] = ['delete-confirmed', 'other-member', 'two-chats', 'restart'];
const { platform, scenario } = args;

if (platform !== undefined && !PLATFORMS.includes(platform as Platform)) {
  console.error(`Unknown platform "${platform}". Platforms: ${PLATFORMS.join(', ')}`);
  process.exitCode = 1;
} else if (platform !== undefined) {
  await onRealPlatform(platform as Platform).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error)); // e.g. a missing variable
    process.exitCode = 1;
  });
} else if (scenario !== undefined && !SCENARIO_NAMES.includes(scenario as ScenarioName)) {
  console.error(`Unknown scenario "${scenario}". Scenarios: ${SCENARIO_NAMES.join(', ')}`);
  process.exitCode = 1;
} else if (args.interactive === true || args.console === true) {
  await interactive(); // --console alone: the console is for looking at a live chat
} else {
  console.log('Starting PGlite (Postgres in WebAssembly)…\n');
  const chosen = scenario !== undefined ? [scenario as ScenarioName] : args.tour === true ? TOUR : undefined;
  const result = await runChannelConfirm({
    ...(chosen === undefined ? {} : { scenarios: chosen }),
    output: (line) => console.log(line),
  });
  const confirmed = result.scenarios.flatMap((s) => s.decisions).filter((d) => d.outcome === 'confirmed');
  console.log(
    `${result.scenarios.length} scenario(s); ${confirmed.length} confirmed change(s); timers left: ${result.pendingTimers}`,
  );
}
