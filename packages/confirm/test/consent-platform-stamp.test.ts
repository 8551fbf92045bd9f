import { createManualClock, createSequentialIds } from '@parley/core';
import { createMessageBus, type DeliverInbound, type SendReceipt } from '@parley/bus';
import { describe, expect, it } from 'vitest';
import { type ConfirmEvents, createConfirmGate } from '../src/index.js';
import { ACTION, flush } from './helpers.js';

// The prompt's delivery time: when its send resolved, or the platform's own stamp of the prompt
// when the adapter reports one inside the send's window.

async function setupStamped() {
  const clock = createManualClock({ now: 1_000_000 });
  const bus = createMessageBus({ clock });
  let deliver: DeliverInbound | undefined;
  const held: ((receipt: SendReceipt) => void)[] = [];
  await bus.attach({
    channel: 'tg',
    connect(next) {
      deliver = next;
    },
    send: () => new Promise<SendReceipt>((resolve) => held.push(resolve)),
  });
  const gate = createConfirmGate({ bus, clock, generateId: createSequentialIds('cfm_'), cards: false });
  await gate.ready;
  const ignored: ConfirmEvents['ignored'][] = [];
  gate.on('ignored', (event) => ignored.push(event));
  const decision = gate.request({
    sessionKey: 'tg:ops',
    action: ACTION,
    summary: 'DELETE',
    requester: 'alice',
  });
  await flush();
  const say = (createdAt: number) =>
    (deliver as DeliverInbound)({ chatId: 'ops', senderId: 'alice', text: '确认', createdAt });
  const resolveSend = (receipt: SendReceipt) => (held.shift() as (r: SendReceipt) => void)(receipt);
  return { clock, gate, ignored, decision, say, resolveSend };
}

describe('the platform stamp of a prompt', () => {
  it('counts a reply the platform stamped after the prompt even when the send resolved after it arrived', async () => {
    const s = await setupStamped();
    s.clock.advance(100);
    const stampedAt = s.clock.now(); // the platform holds the prompt from here
    s.clock.advance(20);
    const reply = s.say(s.clock.now()); // written after the prompt; the send's answer is still on its way
    s.clock.advance(200);
    s.resolveSend({ sentAt: stampedAt });
    await flush();
    expect((await reply).status).toBe('intercepted');
    expect(await s.decision).toMatchObject({ outcome: 'confirmed', decidedBy: 'alice' });
    expect(s.ignored).toEqual([]);
  });

  it('does not count a reply written before the platform stamped the prompt', async () => {
    const s = await setupStamped();
    s.clock.advance(100);
    const reply = s.say(s.clock.now() - 10);
    s.clock.advance(200);
    s.resolveSend({ sentAt: 1_000_100 });
    await flush();
    expect((await reply).status).toBe('intercepted');
    expect(s.ignored).toMatchObject([{ code: 'before_delivery' }]);
    expect(s.gate.pending()).toMatchObject([{ state: 'prompted', delivered: true }]);
    s.gate.close();
    expect(await s.decision).toMatchObject({ outcome: 'aborted' });
  });

  it('ignores a stamp outside the window of the send and uses the moment the send resolved', async () => {
    for (const sentAt of [5, 9_000_000]) {
      const s = await setupStamped();
      s.clock.advance(100);
      const reply = s.say(s.clock.now());
      s.clock.advance(200);
      s.resolveSend({ sentAt });
      await flush();
      expect((await reply).status).toBe('intercepted');
      expect(s.ignored).toMatchObject([{ code: 'before_delivery' }]);
      s.gate.close();
      expect(await s.decision).toMatchObject({ outcome: 'aborted' });
    }
  });
});
