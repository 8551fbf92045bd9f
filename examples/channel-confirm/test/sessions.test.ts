// The seed's switch and the session behaviours around confirmations: `safety.require_confirmation`
// off, two chats side by side with a reply in the wrong chat, and a restart while a confirmation is
// pending. Each runs its scenario on a real PGlite and reads the table back.
import { createSequentialIds } from '@parley/core';
import { createFakeClock } from '@parley/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, SEED_ORDERS } from '../src/database.js';
import { GROUP_CHAT, runChannelConfirm, type ScenarioResult } from '../src/run.js';
import { FINANCE_CHAT, type ScenarioName } from '../src/scenarios.js';

let db: Awaited<ReturnType<typeof openDatabase>>;
beforeAll(async () => {
  db = await openDatabase();
});
afterAll(async () => {
  await db?.close();
});

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

const SEED = SEED_ORDERS.map((row) => ({ ...row }));
const inChat = (result: ScenarioResult, chatId: string) =>
  result.botSaid.filter((m) => m.chatId === chatId).map((m) => m.text);

describe('safety.require_confirmation', () => {
  it('off: the DELETE runs at once, with no prompt, no card and no decision', async () => {
    const { result, pendingTimers } = await run('no-confirmation');
    expect(result.shop.orders).toEqual(SEED.filter((row) => row.id !== 3));
    expect(result.prompts).toBe(0);
    expect(result.decisions).toEqual([]);
    expect(result.botSaid.map((m) => [m.text, m.card])).toEqual([['已执行 DELETE，影响 1 行。', undefined]]);
    expect(result.lines.join('\n')).toContain('safety.require_confirmation is off: runs at once');
    expect(pendingTimers).toBe(0);
  });
});

describe('two chats side by side', () => {
  it('asks in both at once; a 确认 in the other chat answers neither; each requester confirms in their own', async () => {
    const { result, pendingTimers } = await run('two-chats');
    expect(result.shop.orders).toEqual(
      SEED.filter((row) => row.id !== 3).map((row) => (row.id === 2 ? { ...row, status: 'paid' } : row)),
    );
    // Both prompts went out before anyone answered: the ops chat's wait did not block finance.
    expect(result.botSaid.slice(0, 2).map((m) => m.chatId)).toEqual([GROUP_CHAT, FINANCE_CHAT]);
    expect(result.prompts).toBe(2);
    const decided = Object.fromEntries(result.decisions.map((d) => [d.sessionKey, [d.decidedBy, d.outcome]]));
    expect(decided).toEqual({
      [`feishu:${GROUP_CHAT}`]: ['alice', 'confirmed'],
      [`feishu:${FINANCE_CHAT}`]: ['carol', 'confirmed'],
    });
    // alice's 确认 in finance was not an answer: it reached the agent there as ordinary chat.
    expect(
      result.agentSaw.filter((m) => m.chatId === FINANCE_CHAT).map((m) => `${m.senderId}: ${m.text}`),
    ).toEqual(['carol: 把 2 号订单标记为 paid', 'alice: 确认']);
    expect(inChat(result, FINANCE_CHAT).at(-1)).toBe('收到 alice 的「确认」。目前没有需要你来确认的操作。');
    expect(inChat(result, GROUP_CHAT).at(-1)).toBe('已执行 DELETE，影响 1 行。');
    expect(pendingTimers).toBe(0);
  });
});

describe('a restart with a confirmation pending', () => {
  it('keeps the confirmation in the store; the 确认 after the restart runs the DELETE once', async () => {
    const { result, pendingTimers } = await run('restart');
    expect(result.shop.orders).toEqual(SEED.filter((row) => row.id !== 3));
    expect(result.prompts).toBe(1); // asked once, before the restart; not asked again
    expect(result.decisions.map((d) => [d.id, d.outcome, d.decidedBy])).toEqual([
      ['cfm_1', 'confirmed', 'alice'],
    ]);
    expect(result.botSaid.map((m) => m.text).at(-1)).toBe(
      '已执行 DELETE（重启前请求的操作，确认于重启后）。',
    );
    // The stopped process said nothing more; the 确认 never reached either agent.
    expect(result.agentSaw.map((m) => m.text)).toEqual(['删除 3 号订单']);
    expect(result.lines.join('\n')).toMatch(
      /⟲ the bot process stops[\s\S]*alice: 确认\n.*consumed by the confirm gate/,
    );
    expect(result.lines.join('\n')).not.toContain('aborted');
    expect(pendingTimers).toBe(0);
  });
});
