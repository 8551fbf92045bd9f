// The console as a person uses it, in headless Chromium: against the memory store and a real
// redis-server, the pages show what the gates, runners and ledger wrote, and what changes when
// they write again; hostile text stays text; a refused request shows nothing.
import { createMessageBus } from '@parley/bus';
import { CONFIRMATION_RECORD, createConfirmation, createConfirmGate } from '@parley/confirm';
import { startConsole, type RunningConsole, type StartConsoleOptions } from '@parley/console';
import {
  createKernel,
  createManualClock,
  createMemoryStore,
  createSequentialIds,
  type JsonValue,
  type ManualClock,
  type Store,
} from '@parley/core';
import { createLedger } from '@parley/ledger';
import { createPipelineRunner, definePipeline } from '@parley/pipeline';
import { createRedisStore } from '@parley/redis';
import { createFakeChannel, createFakePlatformOrder } from '@parley/testing';
import type { Browser } from 'puppeteer-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedis } from '../../packages/stores/redis/test/helpers.js';
import { until } from '../support/console-cli.js';
import { launchChromium, openPage, rowsOf } from './browser.js';

const NOW = 1_700_000_000_000;
let browser: Browser;
let redis: RedisServer;
let prefixes = 0;
const consoles: RunningConsole[] = [];
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  redis = await startRedis();
});
afterEach(async () => {
  await Promise.all(consoles.splice(0).map((c) => c.close()));
  for (const close of closers.splice(0)) await close();
});
afterAll(async () => {
  await browser?.close();
  await redis?.stop();
});

/**
 * The stores, and the length of the longest hostile string each is given: 100 kB in memory; 20 kB on
 * Redis, because after a reply past its buffer ioredis's parser keeps a shrink timer alive for a
 * while, which the leak check counts against the test (the 100 kB case runs in memory and in the
 * package's tests; the page cuts both to the same 500 characters).
 */
const STORES: [string, (clock: ManualClock) => Store, number][] = [
  ['the memory store', (clock) => createMemoryStore({ clock }), 100_000],
  [
    'a real redis-server',
    () => createRedisStore({ redis: redis.client(), prefix: `browser${++prefixes}:` }),
    20_000,
  ],
];

async function open(options: StartConsoleOptions): Promise<string> {
  const running = await startConsole({ refreshSeconds: 0, ...options });
  consoles.push(running);
  return running.url.replace(/\/$/, '');
}

describe.each(STORES)('the console in Chromium, on %s', (_, makeStore, longest) => {
  it('shows a confirmation when it is asked and drops it from the waiting list once it is answered', async () => {
    const clock = createManualClock({ now: NOW });
    const store = makeStore(clock);
    const bus = createMessageBus({ clock });
    const channel = createFakeChannel({ channel: 'feishu', clock, order: createFakePlatformOrder() });
    await bus.attach(channel);
    const gate = createConfirmGate({ bus, clock, store, generateId: createSequentialIds('cfm_') });
    closers.push(() => gate.close());
    await gate.ready;
    const base = await open({ store, clock });
    const { page } = await openPage(browser);
    await page.goto(`${base}/confirmations`);
    expect(await page.$eval('main', (m) => m.textContent)).toContain('Nothing is waiting for a person.');

    const prompted = new Promise((resolve) => gate.on('prompted', resolve));
    const decision = gate.request({
      sessionKey: 'feishu:g1',
      action: { name: 'sql.delete', args: { sql: 'DELETE FROM orders WHERE status = 1' } },
      summary: 'Delete the 3 cancelled orders',
      requester: 'alice',
    });
    await prompted;
    await page.reload();
    const waiting = await rowsOf(page);
    expect(waiting).toHaveLength(1);
    expect(waiting[0]?.cells.slice(0, 3)).toEqual(['feishu:g1', 'alice', 'requester']);
    expect(waiting[0]?.cells[4]).toBe('Delete the 3 cancelled orders');
    expect(waiting[0]?.cells[7]).toBe('5 min 0 s');

    await channel.say('g1', 'alice', '确认');
    await decision;
    await page.reload();
    expect(await page.$eval('main', (m) => m.textContent)).toContain('Nothing is waiting for a person.');
    await page.goto(`${base}/confirmations/settled`);
    const settled = await rowsOf(page);
    expect(settled.map((r) => [r.cells[4], r.cells[5]])).toEqual([['confirmed (reply)', 'alice']]);
    await page.close();
  });

  it('shows a pipeline’s graph change as its nodes finish', async () => {
    const clock = createManualClock({ now: NOW });
    const store = makeStore(clock);
    const pipeline = definePipeline({
      name: 'quant',
      nodes: [
        { id: 'plan', kind: 'task', agent: 'strategist' },
        { id: 'approve', kind: 'approval', channel: '#desk', dependsOn: ['plan'], timeoutMs: 3_600_000 },
        { id: 'execute', kind: 'task', agent: 'executor', dependsOn: ['approve'] },
      ],
    });
    let finishPlan: () => void = () => {};
    const planned = new Promise<void>((resolve) => {
      finishPlan = resolve;
    });
    const runner = createPipelineRunner({
      store,
      clock,
      work: (ctx) => (ctx.node.id === 'plan' ? planned.then(() => ({ plan: 'buy' })) : { done: true }),
    });
    closers.push(() => runner.close());
    const run = runner.start(pipeline, { runId: 'r1' });
    const base = await open({ store, clock, pipelines: [pipeline] });
    const { page } = await openPage(browser);
    const states = async (): Promise<string[]> => {
      await page.goto(`${base}/runs/r1`);
      return (await rowsOf(page)).map((r) => `${r.cells[0]}:${r.className}`);
    };
    await until(async () => (await states()).includes('plan:running'), 'the plan node to show as running');
    expect(await states()).toEqual(['plan:running', 'approve:pending', 'execute:pending']);

    finishPlan();
    await until(async () => (await states()).includes('approve:waiting'), 'the approval to show as waiting');
    expect(await states()).toEqual(['plan:done', 'approve:waiting', 'execute:pending']);
    expect(await page.$eval('p.waiting', (p) => p.textContent)).toBe('Approvals waiting: approve');
    expect(await page.$eval('pre.mermaid-source', (p) => p.textContent)).toContain('class approve waiting');

    await runner.decide(pipeline, 'r1', 'approve', { approved: true, by: 'chair' });
    await run;
    expect(await states()).toEqual(['plan:done', 'approve:done', 'execute:done']);
    await page.close();
  });

  it('shows a tampered consent chain in red with its first bad entry', async () => {
    const clock = createManualClock({ now: NOW });
    const store = makeStore(clock);
    const ledger = createLedger({ store, clock });
    const digest = 'ab'.repeat(32);
    for (const session of ['feishu:ok', 'feishu:bad']) {
      await ledger.append(session, {
        kind: 'decision',
        confirmationId: 'c1',
        actionDigest: digest,
        outcome: 'confirmed',
        reason: 'reply',
        decidedBy: 'alice',
      });
      await ledger.append(session, { kind: 'authorization', confirmationId: 'c1', actionDigest: digest });
    }
    const key = 'parley:ledger:feishu:bad';
    const stored = (await store.get(key)) as { data: { entries: { body: { decidedBy?: string } }[] } };
    const first = stored.data.entries[0];
    if (first === undefined) throw new Error('the chain has no entry to tamper with');
    first.body.decidedBy = 'mallory';
    await store.set(key, stored as unknown as JsonValue);

    const base = await open({ store, clock });
    const { page } = await openPage(browser);
    await page.goto(`${base}/ledger`);
    const rows = await rowsOf(page);
    expect(rows.map((r) => [r.cells[0], r.className])).toEqual([
      ['feishu:bad', 'bad'],
      ['feishu:ok', 'done'],
    ]);
    const verdict = await page.$eval('tr.bad .tampered', (el) => ({
      text: el.textContent,
      color: getComputedStyle(el).color,
      background: getComputedStyle(el.closest('td') as Element).backgroundColor,
    }));
    expect(verdict.text).toContain('TAMPERED (edited) at line 1, seq 0');
    expect(verdict.color).toBe('rgb(207, 34, 46)');
    expect(verdict.background).toBe('rgb(255, 235, 233)');
    await page.click('a[href="/ledger/feishu%3Abad"]');
    await page.waitForSelector('tr.bad');
    expect(await page.$eval('tr.bad', (r) => r.textContent)).toContain('mallory');
    await page.close();
  });

  it('renders hostile chat names and summaries as inert text: no script runs, no dialog opens', async () => {
    const clock = createManualClock({ now: NOW });
    const store = makeStore(clock);
    const hostile = [
      '<script>window.__pwned = 1; alert("script")</script>',
      '<img src=x onerror="window.__pwned = 2; alert(\'img\')">',
      '<svg onload="alert(\'svg\')"></svg>',
      '"><iframe src="javascript:alert(1)">',
      'pay \u202Eexe.tab\u202C now',
    ].join(' ');
    const made = createConfirmation(
      { sessionKey: 'feishu:g1', action: { name: 'sql.delete', args: {} }, summary: 'x', requester: 'alice' },
      { id: 'c1', now: NOW },
    );
    const record = {
      ...made.record,
      sessionKey: `feishu:${hostile}`,
      summary: `${hostile} ${'A'.repeat(longest)}`,
      requester: '<b onmouseover="alert(2)">bob</b>',
      promptedAt: NOW,
      firstPromptedAt: NOW,
      expiresAt: NOW + 300_000,
    };
    const kernel = createKernel({ store, clock });
    const put = await kernel.apply(
      'confirm:pending:c1',
      CONFIRMATION_RECORD,
      () => ({ value: record, effects: [], deadlineAt: NOW + 300_000 }),
      null,
    );
    expect(put.ok).toBe(true);

    const base = await open({ store, clock });
    const { page, dialogs } = await openPage(browser);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(`${base}/confirmations`);
    await page.hover('tbody tr td:nth-child(2)');
    const seen = await page.evaluate(() => ({
      pwned: '__pwned' in window,
      scripts: document.scripts.length,
      injected: document.querySelectorAll('main img, main svg, main iframe, main b').length,
      summary: document.querySelectorAll('tbody td')[4]?.textContent ?? '',
    }));
    expect(seen).toMatchObject({ pwned: false, scripts: 0, injected: 0 });
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
    expect(seen.summary).toContain('<script>window.__pwned = 1; alert("script")</script>');
    expect(seen.summary).toContain('pay [U+202E]exe.tab[U+202C] now');
    expect(seen.summary).not.toContain('\u202E');
    expect(seen.summary).toMatch(/… \[\d+ more characters\]$/);
    expect(seen.summary.length).toBeLessThan(1_000);
    await page.close();
  });

  it('refuses an unauthenticated request and shows nothing of the store', async () => {
    const clock = createManualClock({ now: NOW });
    const store = makeStore(clock);
    const made = createConfirmation(
      {
        sessionKey: 'feishu:g1',
        action: { name: 'sql.delete', args: {} },
        summary: 'Secret summary',
        requester: 'alice',
      },
      { id: 'c1', now: NOW },
    );
    const kernel = createKernel({ store, clock });
    await kernel.apply(
      'confirm:pending:c1',
      CONFIRMATION_RECORD,
      () => ({ value: { ...made.record, expiresAt: NOW + 300_000 }, effects: [], deadlineAt: NOW + 300_000 }),
      null,
    );
    const base = await open({
      store,
      clock,
      authenticate: (req) => req.headers.authorization === 'Bearer operator',
    });
    const { page } = await openPage(browser);
    const refused = await page.goto(`${base}/confirmations`);
    expect(refused?.status()).toBe(401);
    expect(await page.evaluate(() => document.body.textContent)).toBe('Authentication required.\n');
    await page.setExtraHTTPHeaders({ authorization: 'Bearer operator' });
    const allowed = await page.goto(`${base}/confirmations`);
    expect(allowed?.status()).toBe(200);
    expect(await page.$eval('main', (m) => m.textContent)).toContain('Secret summary');
    await page.close();
  });
});
