import { createMessageBus, type InboundInput } from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import { createManualClock, createMemoryStore } from '@parley/core';
import { suite } from '../lib.js';

const SESSIONS = 10_000;
const PENDING = 1_000; // sessions 0..999 have a confirmation pending; the measured ones do not

function inputs(): InboundInput[] {
  const list: InboundInput[] = [];
  for (let i = PENDING; i < SESSIONS; i++)
    list.push({ channel: 'feishu', chatId: `oc_${i}`, senderId: `ou_${i}`, text: 'hello' });
  return list;
}

async function busWithGate(withGate: boolean) {
  const clock = createManualClock();
  const bus = createMessageBus({ clock, capacity: 4096, overflow: 'drop-oldest' });
  if (withGate) {
    const gate = createConfirmGate({ bus, clock, store: createMemoryStore({ clock }), cards: false });
    await gate.ready;
    let prompted = 0;
    const all = new Promise<void>((resolve) => {
      gate.on('prompted', () => {
        if (++prompted === PENDING) resolve();
      });
    });
    for (let i = 0; i < PENDING; i++) {
      void gate.request({
        sessionKey: `feishu:oc_${i}`,
        action: { name: 'drop' },
        summary: 'DROP',
        requester: `ou_${i}`,
      });
    }
    await all;
  }
  const list = inputs();
  let n = 0;
  return () => bus.publishInbound(list[n++ % list.length] as InboundInput);
}

suite('confirm: publishInbound, 10k sessions, nothing pending in this one', {
  cases: {
    'bus with confirm gate': () => busWithGate(true),
    'bus without gate': () => busWithGate(false),
  },
  goals: [{ case: 'bus with confirm gate', vs: 'bus without gate', slowerByAtMost: 1.5 }],
});

/**
 * A full round trip: request → prompt on the bus → reply "确认" intercepted → decision. Note that
 * bench/lib.ts does not await an op's promise, so both cases are started per op and settle in the
 * background; the awaited cost is printed by `node bench/cases/confirm.bench.ts --awaited`.
 */
async function gateRoundTrip(): Promise<() => Promise<unknown>> {
  const clock = createManualClock();
  const bus = createMessageBus({ clock, capacity: 1 << 20, overflow: 'drop-oldest' });
  const gate = createConfirmGate({ bus, clock, store: createMemoryStore({ clock }), cards: false });
  await gate.ready;
  let n = 0;
  gate.on('prompted', ({ sessionKey }) => {
    void bus.publishInbound({
      channel: 'feishu',
      chatId: sessionKey.slice(7),
      senderId: 'ou_a',
      text: '确认',
    });
  });
  return () =>
    gate.request({
      sessionKey: `feishu:c${n++ % 1000}`,
      action: { name: 'drop', args: { t: 'x' } },
      summary: 'DROP x',
      requester: 'ou_a',
    });
}

function bareRoundTrip(): () => Promise<unknown> {
  const pending = new Map<string, (ok: boolean) => void>();
  let n = 0;
  return () => {
    const id = `c${n++}`;
    const promise = new Promise<boolean>((resolve) => pending.set(id, resolve));
    queueMicrotask(() => {
      const resolve = pending.get(id);
      pending.delete(id);
      resolve?.('确认'.trim() === '确认');
    });
    return promise;
  };
}

suite('confirm: round trip request → reply → decision', {
  cases: {
    'parley confirm gate': gateRoundTrip,
    'bare Map + Promise': () => bareRoundTrip(),
  },
  goals: [{ case: 'parley confirm gate', vs: 'bare Map + Promise', slowerByAtMost: 3 }],
});

if (process.argv.includes('--awaited')) {
  const rounds = 20_000;
  for (const [name, make] of [
    ['parley confirm gate', gateRoundTrip],
    ['bare Map + Promise', async () => bareRoundTrip()],
  ] as const) {
    const op = await make();
    for (let i = 0; i < 2_000; i++) await op();
    const start = performance.now();
    for (let i = 0; i < rounds; i++) await op();
    console.log(
      `${name}: ${(((performance.now() - start) / rounds) * 1e6).toFixed(0)} ns per awaited round trip`,
    );
  }
}
