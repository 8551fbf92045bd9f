import { createSequentialIds } from '@parley/core';
import { createFakeChannel, createFakeClock, createProgress } from '@parley/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, readShop, resetShop, runSql, SEED_ORDERS, type ShopState } from '../src/database.js';
import { createDriver } from '../src/driver.js';
import { CHANNEL, GROUP_CHAT, runChannelConfirm, type ScenarioResult } from '../src/run.js';
import type { ScenarioName } from '../src/scenarios.js';
import { MAX_SQL_LENGTH } from '../src/tool.js';
import { createShopBot } from '../src/wiring.js';

// One PGlite for the whole file (it takes seconds to start); every scenario resets the schema.
let db: Awaited<ReturnType<typeof openDatabase>>;
beforeAll(async () => {
  db = await openDatabase();
});
afterAll(async () => {
  await db?.close();
});

const SEED = SEED_ORDERS.map((row) => ({ ...row }));
const withoutId = (id: number) => SEED.filter((row) => row.id !== id);

async function run(name: ScenarioName): Promise<{ result: ScenarioResult; pendingTimers: number }> {
  const clock = createFakeClock({ now: Date.UTC(2025, 0, 6, 9, 0, 0) });
  const out = await runChannelConfirm({
    db,
    clock,
    generateId: createSequentialIds('cfm_'),
    scenarios: [name],
  });
  return { result: out.scenarios[0] as ScenarioResult, pendingTimers: out.pendingTimers };
}

/** What the agent read, as `sender: text`. */
const saw = (result: ScenarioResult) => result.agentSaw.map((m) => `${m.senderId}: ${m.text}`);
/** What the model was asked about (first step of each turn), as `sender: text`. */
const asked = (result: ScenarioResult) =>
  result.modelRequests.filter((r) => r.toolResults === undefined).map((r) => `${r.from}: ${r.text}`);
const botTexts = (result: ScenarioResult) => result.botSaid.map((m) => m.text);
const unchanged = (shop: ShopState) => {
  expect(shop.orders).toEqual(SEED);
  expect(shop.indexes).toEqual(['orders_pkey']);
};

describe('channel-confirm scenarios (real PGlite)', () => {
  it('runs a SELECT at once, without a prompt or card', async () => {
    const { result, pendingTimers } = await run('select');
    unchanged(result.shop);
    expect(result.prompts).toBe(0);
    expect(result.decisions).toEqual([]);
    expect(result.botSaid.some((m) => m.card !== undefined)).toBe(false);
    expect(botTexts(result)).toEqual([
      '查询到 2 行：id=2 customer=华南仓 amount=80.50；id=4 customer=华北仓 amount=300.00',
    ]);
    expect(saw(result)).toEqual(['alice: 查一下未完成的订单']);
    expect(pendingTimers).toBe(0);
  });

  it('deletes the row only after the requester replies 确认, and the reply never reaches the agent', async () => {
    const { result, pendingTimers } = await run('delete-confirmed');
    expect(result.shop.orders).toEqual(withoutId(3));
    expect(result.decisions.map((d) => [d.outcome, d.reason, d.decidedBy])).toEqual([
      ['confirmed', 'reply', 'alice'],
    ]);
    expect(result.decisions[0]?.action.args).toEqual({ sql: 'DELETE FROM orders WHERE id = 3' });
    expect(saw(result)).toEqual(['alice: 删除 3 号订单']);
    expect(asked(result)).toEqual(['alice: 删除 3 号订单']);
    const [prompt, done] = result.botSaid;
    expect(prompt?.text).toMatch(
      /^以下操作需要确认：\[data_modify · [0-9a-f]{12}\] 修改数据 DML · DELETE FROM orders WHERE id = 3/,
    );
    expect(prompt?.card?.buttons.map((b) => b.label)).toEqual(['确认 Confirm', '取消 Cancel']);
    expect(done?.text).toBe('已执行 DELETE，影响 1 行。');
    expect(result.lines.join('\n')).toMatch(/alice: 确认\n.*consumed by the confirm gate/);
    // the consent ledger holds the request, the delivered prompt, alice's answer, the decision, the
    // authorization and the effect, and a copy with the answer's author changed does not verify
    expect(result.lines.join('\n')).toContain(
      "ledger 6 entries verified; a copy with the answer's author changed: edited at line 3",
    );
    expect(pendingTimers).toBe(0);
  });

  it('leaves the table unchanged when the requester replies 取消 to an UPDATE', async () => {
    const { result } = await run('update-cancelled');
    unchanged(result.shop);
    expect(result.decisions.map((d) => [d.outcome, d.reason, d.reply])).toEqual([
      ['cancelled', 'reply', '取消'],
    ]);
    expect(saw(result)).toEqual(['alice: 把 2 号订单标记为 paid']);
    expect(botTexts(result).at(-1)).toBe('好的，操作已取消，数据没有改动。');
    expect(result.lines.join('\n')).toContain('tool: data_modify not run (confirmation_declined)');
  });

  it("neither counts nor consumes another member's 确认; the requester's later 确认 executes", async () => {
    const { result } = await run('other-member');
    expect(result.shop.orders).toEqual(withoutId(3));
    expect(result.decisions).toHaveLength(1);
    expect(result.decisions[0]?.decidedBy).toBe('alice');
    // bob's 确认 reached the agent as ordinary chat (after the DELETE finished); alice's did not.
    expect(saw(result)).toEqual(['alice: 删除 3 号订单', 'bob: 确认']);
    expect(asked(result)).toEqual(['alice: 删除 3 号订单', 'bob: 确认']);
    expect(botTexts(result).slice(1)).toEqual([
      '已执行 DELETE，影响 1 行。',
      '收到 bob 的「确认」。目前没有需要你来确认的操作。',
    ]);
    expect(result.lines.join('\n')).toMatch(/bob: 确认\n.*not counted as an answer \(only the requester/);
  });

  it('cancels on timeout, leaves the table unchanged, and treats a late 确认 as chat', async () => {
    const { result, pendingTimers } = await run('timeout');
    unchanged(result.shop);
    expect(result.decisions.map((d) => [d.outcome, d.reason, d.decidedBy])).toEqual([
      ['timed_out', 'timeout', undefined],
    ]);
    const decision = result.decisions[0];
    expect((decision?.decidedAt ?? 0) - (decision?.promptedAt ?? 0)).toBe(300_000);
    expect(botTexts(result)).toContain('等待确认超时，操作已取消，数据没有改动。');
    expect(botTexts(result).some((text) => text.startsWith('确认已超时'))).toBe(true);
    // Nothing is pending any more, so the late 确认 is ordinary chat and runs nothing.
    expect(saw(result)).toEqual(['alice: 删除 4 号订单', 'alice: 确认']);
    expect(botTexts(result).at(-1)).toBe('收到 alice 的「确认」。目前没有需要你来确认的操作。');
    expect(pendingTimers).toBe(0);
  });

  it("refuses bob's card click and creates the index on the requester's click", async () => {
    const { result } = await run('card-ddl');
    expect(result.shop.orders).toEqual(SEED);
    expect(result.shop.indexes).toEqual(['orders_customer_idx', 'orders_pkey']);
    expect(result.decisions.map((d) => [d.outcome, d.reason, d.decidedBy])).toEqual([
      ['confirmed', 'card', 'alice'],
    ]);
    expect(result.lines.join('\n')).toContain('confirm: card click by bob refused (not_allowed)');
    expect(result.botSaid[0]?.text).toContain(
      '修改结构 DDL · CREATE INDEX orders_customer_idx ON orders (customer)',
    );
    // Card clicks are consumed by the gate: the agent only read alice's request.
    expect(saw(result)).toEqual(['alice: 给 customer 列建索引']);
  });

  it("cancels on ambiguous replies («确认取消», «yes please don't»)", async () => {
    const { result } = await run('ambiguous');
    unchanged(result.shop);
    expect(result.decisions.map((d) => [d.outcome, d.reason, d.reply])).toEqual([
      ['cancelled', 'unrecognised', '确认取消'],
      ['cancelled', 'unrecognised', "yes please don't"],
    ]);
    expect(saw(result)).toEqual(['alice: 把 2 号订单标记为 paid', 'alice: 删除 4 号订单']);
  });

  it('runs all scenarios in order on one database with a readable transcript', async () => {
    const lines: string[] = [];
    const out = await runChannelConfirm({ db, output: (line) => lines.push(line) });
    expect(out.scenarios.map((s) => s.name)).toEqual([
      'select',
      'delete-confirmed',
      'update-cancelled',
      'other-member',
      'timeout',
      'card-ddl',
      'ambiguous',
      'no-confirmation',
      'two-chats',
      'restart',
    ]);
    expect(lines).toEqual(out.lines);
    expect(out.pendingTimers).toBe(0);
    // Confirmation ids run on across scenarios: cfm_1 … cfm_10, each decided once.
    const ids = out.scenarios.flatMap((s) => s.decisions.map((d) => d.id));
    expect([...ids].sort((a, b) => Number(a.slice(4)) - Number(b.slice(4)))).toEqual(
      Array.from({ length: 10 }, (_, i) => `cfm_${i + 1}`),
    );
    // No requester reply to a prompt ever reached the model (in two-chats alice also writes 确认 in
    // the other chat, which is chat there and reaches it on purpose: sessions.test.ts checks that).
    for (const scenario of out.scenarios.filter((s) => s.name !== 'two-chats')) {
      const replies = new Set(scenario.decisions.flatMap((d) => (d.reason === 'reply' ? [d.reply] : [])));
      const fromRequester = scenario.modelRequests.filter((r) => r.from === 'alice' && replies.has(r.text));
      expect(fromRequester).toEqual([]);
    }
  });
});

describe('the database guards behind the classifier', () => {
  it('refuses a write that is run as a read (READ ONLY transaction)', async () => {
    await resetShop(db);
    for (const sql of [
      'WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d',
      "SELECT nextval('x')",
      'SELECT * INTO copy_of_orders FROM orders',
    ]) {
      await expect(runSql(db, sql, 'read')).rejects.toThrow(/read-only transaction|does not exist/);
    }
    await expect(runSql(db, 'SELECT 1; DELETE FROM orders', 'read')).rejects.toThrow(/multiple commands/);
    expect((await readShop(db)).orders).toEqual(SEED);
  });

  it('rolls a multi-statement write back as a whole when one statement fails', async () => {
    await resetShop(db);
    await expect(
      runSql(db, "DELETE FROM orders WHERE id = 1; UPDATE orders SET status = 'lost' WHERE id = 2", 'write'),
    ).rejects.toThrow(/check constraint/);
    expect((await readShop(db)).orders).toEqual(SEED);
  });
});

/** A bot on the shared database, driven directly, for the refusals the scenarios do not show. */
async function startBot() {
  await resetShop(db);
  const clock = createFakeClock({ now: 0 });
  const lines: string[] = [];
  const progress = createProgress();
  const channel = createFakeChannel({ channel: CHANNEL, clock, echo: true });
  const bot = await createShopBot({
    db,
    channel,
    clock,
    log: (line) => lines.push(line),
    onProgress: progress.poke,
  });
  const driver = createDriver({
    bot: () => bot,
    channel,
    chatId: GROUP_CHAT,
    progress,
    log: (l) => lines.push(l),
    clock,
  });
  return { bot, driver, channel, lines, clock };
}

describe('what data_modify refuses', () => {
  it('refuses transaction and session control before anyone is asked', async () => {
    const { bot, driver, channel, lines, clock } = await startBot();
    await driver.say('alice', 'sql: SET search_path TO public');
    await driver.settle();
    await bot.close();
    expect(bot.counts.prompts).toBe(0);
    expect(lines).toContain('tool: data_modify not run (not_allowed/session_control)');
    expect(channel.sent.at(-1)?.text).toMatch(
      /^没有执行（not_allowed）：Transaction and session control \(SET\)/,
    );
    expect((await readShop(db)).orders).toEqual(SEED);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('reports a statement Postgres rejects as sql_error, after confirmation, with nothing changed', async () => {
    const { bot, driver, channel, lines } = await startBot();
    await driver.say(
      'alice',
      "sql: DELETE FROM orders WHERE id = 1; UPDATE orders SET status = 'lost' WHERE id = 2",
    );
    await driver.waitForPrompt();
    expect(channel.sent[0]?.text).toContain(
      '修改数据 DML (2 statements) · DELETE FROM orders WHERE id = 1; UPDATE',
    );
    await driver.say('alice', '确认');
    await driver.settle();
    await bot.close();
    expect(lines).toContain('tool: data_modify not run (tool_refused/sql_error)');
    expect(channel.sent.at(-1)?.text).toMatch(
      /PostgreSQL refused the statement \(nothing changed\).*check constraint/,
    );
    expect((await readShop(db)).orders).toEqual(SEED);
  });

  it(`refuses SQL longer than ${MAX_SQL_LENGTH} characters, which a prompt could not show whole`, async () => {
    const { bot, driver, lines } = await startBot();
    await driver.say('alice', `sql: DELETE FROM orders WHERE customer = '${'x'.repeat(MAX_SQL_LENGTH)}'`);
    await driver.settle();
    await bot.close();
    expect(bot.counts.prompts).toBe(0);
    expect(lines).toContain('tool: data_modify not run (invalid_args)');
    expect((await readShop(db)).orders).toEqual(SEED);
  });

  it('counts a redelivered 确认 once and never lets it reach the agent', async () => {
    const { bot, driver, channel } = await startBot();
    await driver.say('alice', '删除 1 号订单');
    await driver.waitForPrompt();
    channel.duplicateNext();
    await driver.say('alice', '确认');
    await driver.settle();
    await bot.close();
    const duplicates = channel.delivered.filter((d) => d.duplicate).map((d) => d.result);
    expect(duplicates).toMatchObject([{ status: 'intercepted', by: 'hygiene' }]);
    expect(bot.seen.map((m) => m.text)).toEqual(['删除 1 号订单']);
    expect((await readShop(db)).orders).toEqual(withoutId(1));
  });
});
