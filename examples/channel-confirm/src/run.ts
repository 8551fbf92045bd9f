// Runs the scripted scenarios against a real PGlite database with an injected clock and ids, and
// returns what really happened: the table after each scenario, the decisions the confirm gate
// recorded, what the agent and the model saw, what the bot said, and the transcript.
import type { InboundMessage, OutboundMessage } from '@parley/bus';
import type { ConfirmDecision } from '@parley/confirm';
import { createSequentialIds, type IdGenerator, type ManualClock } from '@parley/core';
import { createLedger, verifyLedger } from '@parley/ledger';
import { createPostgresStore } from '@parley/postgres';
import { createFakeChannel, createFakeClock, createProgress, createTranscript } from '@parley/testing';
import {
  formatShop,
  openDatabase,
  readShop,
  resetShop,
  type ShopState,
  type SqlDatabase,
} from './database.js';
import { createDriver } from './driver.js';
import { runSteps, SCENARIOS, type ScenarioName } from './scenarios.js';
import type { ModelRequest } from './script.js';
import { createShopBot, type ShopBot } from './wiring.js';

export const CHANNEL = 'feishu';
export const GROUP_CHAT = 'oc_orders_ops';
/** The schema of the bot's Store (@parley/postgres) in the shop's PGlite. */
export const BOT_SCHEMA = 'shop_bot';

export interface RunOptions {
  /** An open database (e.g. one PGlite per test file); opened here, and closed, when omitted. */
  readonly db?: SqlDatabase;
  /** Simulated time; a fake clock at 2025-01-06 09:00 UTC by default. */
  readonly clock?: ManualClock;
  /** Confirmation ids; `cfm_1`, `cfm_2`… by default. */
  readonly generateId?: IdGenerator;
  /** Which scenarios, in order; all by default. */
  readonly scenarios?: readonly ScenarioName[];
  /** Receives each transcript line as it is written. */
  readonly output?: (line: string) => void;
}

export interface ScenarioResult {
  readonly name: ScenarioName;
  readonly title: string;
  /** The shop as the database has it after the scenario. */
  readonly shop: ShopState;
  /** Every decision the confirm gate recorded (its audit trail). */
  readonly decisions: readonly ConfirmDecision[];
  /** Every message the agent read from the bus (before and after a restart). */
  readonly agentSaw: readonly InboundMessage[];
  /** Every request the model was sent. */
  readonly modelRequests: readonly ModelRequest[];
  /** Every message the bot sent to the group. */
  readonly botSaid: readonly OutboundMessage[];
  /** Confirmation prompts sent. */
  readonly prompts: number;
  readonly lines: readonly string[];
}

export interface RunResult {
  readonly scenarios: readonly ScenarioResult[];
  readonly lines: readonly string[];
  /** Timers left on the clock after everything closed (0 when nothing leaks). */
  readonly pendingTimers: number;
}

export async function runChannelConfirm(options: RunOptions = {}): Promise<RunResult> {
  const clock = options.clock ?? createFakeClock({ now: Date.UTC(2025, 0, 6, 9, 0, 0) });
  const generateId = options.generateId ?? createSequentialIds('cfm_');
  const output = options.output;
  const transcript = createTranscript({ clock, ...(output === undefined ? {} : { output }) });
  const names = options.scenarios ?? SCENARIOS.map((scenario) => scenario.name);
  const db = options.db ?? (await openDatabase());
  const results: ScenarioResult[] = [];
  try {
    for (const [index, name] of names.entries()) {
      const scenario = SCENARIOS.find((candidate) => candidate.name === name);
      if (scenario === undefined) throw new Error(`Unknown scenario "${name}"`);
      const from = transcript.lines.length;
      transcript.note(`━━ ${index + 1}. ${scenario.name}: ${scenario.title}`);
      await resetShop(db);
      transcript.log(`table  ${formatShop(await readShop(db))}`);
      const progress = createProgress();
      const channel = createFakeChannel({ channel: CHANNEL, clock, echo: true });
      // Pending confirmations, decisions and settings in the same PGlite, in a fresh schema: what a
      // restarted bot finds again.
      await db.exec(`DROP SCHEMA IF EXISTS ${BOT_SCHEMA} CASCADE`);
      const store = createPostgresStore({ db, schema: BOT_SCHEMA, clock, sweepIntervalMs: 0 });
      const ledger = createLedger({ store, clock }); // who saw what and who approved, verifiable offline
      const stopped: ShopBot[] = []; // bots before a restart: they write nothing more
      const start = (): Promise<ShopBot> => {
        const generation = stopped.length;
        const log = (line: string): void => void (stopped.length === generation && transcript.log(line));
        return createShopBot({
          db,
          channel,
          clock,
          generateId,
          store,
          ledger,
          log,
          onProgress: progress.poke,
        });
      };
      let bot = await start();
      const restart = async (): Promise<void> => {
        stopped.push(bot);
        await bot.close('crash');
        bot = await start();
      };
      const chat = { channel, chatId: GROUP_CHAT, progress, log: transcript.log, clock };
      const driver = createDriver({ bot: () => bot, restart, ...chat });
      try {
        await runSteps(scenario, driver);
      } finally {
        await bot.close();
      }
      const shop = await readShop(db);
      transcript.log(`table  ${formatShop(shop)}`);
      transcript.note('');
      const decisions: ConfirmDecision[] = [];
      for await (const decision of bot.confirm.audit()) decisions.push(decision);
      const session = decisions[0]?.sessionKey;
      // every scenario keeps a ledger; the first with a decision shows it verified offline, and a
      // tampered copy caught
      if (session !== undefined && !results.some((r) => r.decisions.length > 0)) {
        transcript.log(describeLedger(await ledger.exportLines(session)));
      }
      await store.close();
      const bots = [...stopped, bot];
      results.push({
        name: scenario.name,
        title: scenario.title,
        shop,
        decisions,
        agentSaw: bots.flatMap((b) => b.seen),
        modelRequests: bots.flatMap((b) => b.model.requests),
        botSaid: [...channel.sent],
        prompts: bots.reduce((sum, b) => sum + b.counts.prompts, 0),
        lines: transcript.lines.slice(from),
      });
    }
  } finally {
    if (options.db === undefined) await db.close();
  }
  return { scenarios: results, lines: transcript.lines, pendingTimers: clock.pendingTimers() };
}

/**
 * Verifies the session's exported ledger, then a tampered copy: the answer's author changed, or
 * (when nobody answered) the first entry's time moved by 1 ms.
 */
function describeLedger(exported: string): string {
  const verdict = verifyLedger(exported);
  const answered = exported.includes('"authorId":');
  const tampered = answered
    ? exported.replace(/"authorId":"[^"]*"/, '"authorId":"mallory"')
    : exported.replace(/"at":(\d+)/, (_, at: string) => `"at":${Number(at) + 1}`);
  const caught = verifyLedger(tampered);
  const held = verdict.ok ? `${verdict.entries} entries verified` : `does not verify (${verdict.code})`;
  const change = answered ? "the answer's author changed" : "the first entry's time moved";
  return `ledger ${held}; a copy with ${change}: ${caught.ok ? 'not caught' : `${caught.code} at line ${caught.line}`}`;
}
