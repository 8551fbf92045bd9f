// Takes packages/oversight/console/media/console.png, the README's screenshot: a console over a memory store
// holding what the channel-confirm example writes (a confirmation waiting, one settled) and a
// tampered ledger chain, opened in headless Chromium. Run after `npm run build`:
//   npx tsx scripts/console-screenshot.ts
import { join } from 'node:path';
import { createMessageBus } from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import { startConsole } from '@parley/console';
import { createManualClock, createMemoryStore, createSequentialIds, type JsonValue } from '@parley/core';
import { createLedger } from '@parley/ledger';
import { createFakeChannel, createFakePlatformOrder } from '@parley/testing';
import { launchChromium } from '../tests/browser/browser.js';

const clock = createManualClock({ now: Date.UTC(2026, 10, 29, 9, 30) });
const store = createMemoryStore({ clock });
const bus = createMessageBus({ clock });
const channel = createFakeChannel({ channel: 'feishu', clock, order: createFakePlatformOrder() });
await bus.attach(channel);
const ledger = createLedger({ store, clock });
const gate = createConfirmGate({ bus, clock, store, ledger, generateId: createSequentialIds('cfm_') });
await gate.ready;
const ask = async (chat: string, who: string, summary: string): Promise<{ decision: Promise<unknown> }> => {
  const prompted = new Promise((resolve) => gate.on('prompted', resolve));
  const decision = gate.request({
    sessionKey: `feishu:${chat}`,
    requester: who,
    action: { name: 'sql.delete', args: { sql: summary } },
    summary,
  });
  await prompted;
  return { decision };
};
const { decision: first } = await ask('oc_ops', 'ou_alice', 'DELETE FROM orders WHERE status = 1 (3 rows)');
await channel.say('oc_ops', 'ou_alice', '确认');
await first;
clock.advance(95_000);
void ask('oc_finance', 'ou_bob', 'DROP TABLE invoices_2019');
await new Promise((resolve) => setImmediate(resolve));
clock.advance(40_000);
// someone edits the stored consent chain of the first chat
const key = 'parley:ledger:feishu:oc_ops';
const chain = (await store.get(key)) as { data: { entries: { body: Record<string, JsonValue> }[] } };
const answer = chain.data.entries.find((entry) => entry.body.kind === 'answer');
if (answer !== undefined) answer.body.authorId = 'ou_mallory';
await store.set(key, chain as unknown as JsonValue);

const running = await startConsole({ store, clock, refreshSeconds: 0 });
const browser = await launchChromium();
const page = await browser.newPage();
await page.setViewport({ width: 1280, height: 720 });
await page.goto(`${running.url}confirmations`);
await page.goto(`${running.url}ledger`);
const ledgerHtml = await page.$eval('main', (main) => main.innerHTML);
// one picture of both pages: the waiting list above the ledger's verdicts
await page.goto(`${running.url}confirmations`);
await page.$eval(
  'main',
  (main, more) => {
    main.insertAdjacentHTML('beforeend', more);
  },
  ledgerHtml,
);
const out = join(import.meta.dirname, '..', 'packages', 'oversight', 'console', 'media', 'console.png');
await page.screenshot({ path: out as `${string}.png`, fullPage: true });
await browser.close();
await running.close();
await gate.close();
console.log(`wrote ${out}`);
