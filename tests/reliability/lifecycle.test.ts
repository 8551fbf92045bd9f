import { createHygieneInterceptor, createMessageBus } from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import { createManualClock, createMemoryStore, isParleyError } from '@parley/core';
import { createCorrelator, defineProtocol, shutdownProtocol } from '@parley/correlate';
import { defineMachine, defineRequestMachine } from '@parley/fsm';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { cite } from './catalogue.js';
import { ACTION, type Bot, startBot } from './routing.harness.js';

/** NaN, ±Infinity, 0, negative, one past the largest timer delay, and a non-number. */
const INSANE: readonly unknown[] = [
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  0,
  -1,
  2 ** 31,
  '5000',
];

const isInvalidTimeout = (error: unknown): boolean => isParleyError(error, 'invalid_timeout');

const bots: Bot[] = [];
afterEach(async () => {
  for (const bot of bots.splice(0)) {
    await bot.gate.close();
    bot.bus.close();
  }
});
async function bot(...args: Parameters<typeof startBot>): Promise<Bot> {
  const started = await startBot(...args);
  bots.push(started);
  return started;
}

describe('timeouts outside a sane range are refused at registration (rule 5)', () => {
  it(`${cite('LIFE-03')} confirm: refuses them at gate creation and per request, and prompts nothing`, async () => {
    const bus = createMessageBus();
    for (const value of INSANE) {
      for (const option of ['timeoutMs', 'standingAllowanceMs', 'auditTtlMs'] as const) {
        expect(
          () => createConfirmGate({ bus, [option]: value as number }),
          `${option} ${String(value)}`,
        ).toThrow(expect.objectContaining({ code: 'invalid_timeout' }));
      }
    }
    const b = await bot();
    for (const value of INSANE) {
      await expect(b.ask({ timeoutMs: value as number })).rejects.toSatisfy(isInvalidTimeout);
    }
    expect(b.channel.sent).toEqual([]);
    expect(b.gate.pending()).toEqual([]);
    expect(b.clock.pendingTimers()).toBe(0);
    bus.close();
  });

  it(`${cite('LIFE-04')} correlate: refuses them in options, protocols and requests, and sends nothing`, async () => {
    const sent: unknown[] = [];
    const clock = createManualClock();
    for (const value of INSANE) {
      for (const option of ['timeoutMs', 'humanTimeoutMs', 'maxTotalMs'] as const) {
        expect(() =>
          createCorrelator({
            self: 'lead',
            protocols: [shutdownProtocol],
            send: (m) => sent.push(m),
            clock,
            [option]: value,
          }),
        ).toThrow(expect.objectContaining({ code: 'invalid_timeout' }));
        expect(() =>
          defineProtocol('deploy', {
            request: z.object({}),
            response: z.object({}),
            [option]: value as number,
          }),
        ).toThrow(expect.objectContaining({ code: 'invalid_timeout' }));
      }
    }
    const lead = createCorrelator({
      self: 'lead',
      protocols: [shutdownProtocol],
      send: (m) => sent.push(m),
      clock,
    });
    for (const value of INSANE) {
      const request = lead.request(shutdownProtocol, {
        to: 'alice',
        payload: { reason: 'done' },
        timeoutMs: value as number,
      });
      await expect(request).rejects.toSatisfy(isInvalidTimeout);
    }
    expect(sent).toEqual([]);
    expect(lead.list()).toEqual([]);
    lead.close();
    expect(clock.pendingTimers()).toBe(0);
  });

  it(`${cite('LIFE-05')} fsm: refuses an insane \`after\` delay in defineMachine and defineRequestMachine`, () => {
    for (const value of INSANE.filter((v) => typeof v === 'number')) {
      const key = String(value);
      expect(() =>
        defineMachine({
          id: 'm',
          version: 1,
          initial: 'a',
          context: {},
          states: { a: { on: { tick: 'b' }, after: { [key]: 'tick' } as never }, b: { final: true } },
        }),
      ).toThrow(expect.objectContaining({ code: 'invalid_definition' }));
      expect(() => defineRequestMachine({ timeoutMs: value as number })).toThrow(
        expect.objectContaining({ code: 'invalid_definition' }),
      );
    }
    expect(() => defineRequestMachine({ timeoutMs: 2 ** 31 - 1 })).not.toThrow();
  });

  it(`${cite('LIFE-07')} bus hygiene and the store: refuse a bad maxAgeMs and ttlMs`, async () => {
    const store = createMemoryStore({ clock: createManualClock() });
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, 0, -1]) {
      expect(() => createHygieneInterceptor({ maxAgeMs: value })).toThrow(
        expect.objectContaining({ code: 'invalid_argument' }),
      );
      await expect(store.set('k', 1, { ttlMs: value })).rejects.toSatisfy(isInvalidTimeout);
    }
    expect(await store.get('k')).toBeUndefined();
    await store.close();
  });
});

describe('exactly-once settlement of a confirmation (rule 3)', () => {
  it(`${cite('LIFE-08')} settles once when a click, a reply, an abort and the timeout arrive at the same instant`, async () => {
    for (let order = 0; order < 24; order++) {
      const b = await bot();
      const controller = new AbortController();
      const { decision, id } = await b.ask({ timeoutMs: 1_000, signal: controller.signal });
      const confirm = b.token('confirm');
      b.clock.advance(999);
      const racers = [
        () => b.channel.click('g1', 'alice', { confirmation: confirm }),
        () => b.channel.say('g1', 'alice', '取消'),
        async () => controller.abort(new Error('user left')),
        async () => b.clock.advance(1),
      ];
      // every one of the 24 orders of the four racers
      const permutation = permute(racers.length, order).map((i) => racers[i] as () => Promise<unknown>);
      await Promise.all(permutation.map((run) => run()));
      const final = await decision;
      expect(['confirmed', 'cancelled', 'aborted', 'timed_out']).toContain(final.outcome);
      expect(b.decided.map((d) => d.id)).toEqual([id]);
      expect(b.gate.pending()).toEqual([]);
      expect(b.clock.pendingTimers()).toBe(0);
      const auth = await b.gate.authorize(id, ACTION);
      expect(auth.ok).toBe(final.outcome === 'confirmed');
    }
  });

  it(`${cite('LIFE-09')} settles every pending and queued confirmation once on close, leaving no timer`, async () => {
    const b = await bot();
    const controller = new AbortController();
    const first = await b.ask({ signal: controller.signal });
    const second = b.gate.request({
      sessionKey: 'feishu:g1',
      action: ACTION,
      summary: 's',
      requester: 'alice',
    });
    const third = await b.ask({ sessionKey: 'feishu:g2', signal: controller.signal });
    await b.gate.close();
    const decisions = await Promise.all([first.decision, second, third.decision]);
    expect(decisions.map((d) => [d.outcome, d.reason])).toEqual([
      ['aborted', 'closed'],
      ['aborted', 'closed'],
      ['aborted', 'closed'],
    ]);
    controller.abort(); // a late abort changes nothing
    await b.channel.say('g1', 'alice', '确认');
    expect(b.decided.filter((d) => d.outcome === 'confirmed')).toEqual([]);
    expect(b.clock.pendingTimers()).toBe(0);
    await expect(
      b.gate.request({ sessionKey: 'feishu:g1', action: ACTION, summary: 's', requester: 'alice' }),
    ).rejects.toSatisfy((error: unknown) => isParleyError(error, 'closed'));
  });
});

describe('restarts (rule 9: the API makes crash recovery possible)', () => {
  it(`${cite('RESTART-01')} expires a restored confirmation with a notice when answered, and never forwards the answer`, async () => {
    const a = await bot();
    const { id } = await a.ask();
    await a.gate.close(); // the process dies; the store keeps the record
    const b = await bot({}, { clock: a.clock, store: a.store });
    expect(b.gate.pending()).toMatchObject([{ id, restored: true }]);
    const decided = nextDecision(b);
    const result = await b.channel.say('g1', 'alice', '确认');
    await decided;
    expect(result.status).toBe('intercepted');
    expect(b.forwarded()).toEqual([]);
    expect(b.decided).toMatchObject([{ id, outcome: 'aborted', reason: 'expired' }]);
    expect(b.channel.lastSent('g1')?.text).toBeTruthy(); // the user is told
    expect(await b.gate.authorize(id, ACTION)).toMatchObject({ ok: false, code: 'not_confirmed' });
  });

  it(`${cite('RESTART-02')} never authorises an action twice across a restart: a started execution stays outcome-unknown`, async () => {
    const a = await bot();
    const { decision, id } = await a.ask();
    await a.channel.say('g1', 'alice', '确认');
    await decision;
    expect(await a.gate.authorize(id, ACTION)).toMatchObject({ ok: true });
    // crash while the action runs; the restarted host asks again
    await a.gate.close();
    const b = await bot({}, { clock: a.clock, store: a.store });
    expect(await b.gate.authorize(id, ACTION)).toMatchObject({ ok: false, code: 'already_used' });
    const [record] = await collect(b.gate.audit());
    expect(record).toMatchObject({ id, outcome: 'confirmed' });
  });

  it(`${cite('RESTART-03')} times a restored confirmation out from its persisted absolute deadline`, async () => {
    const a = await bot();
    const { id } = await a.ask({ timeoutMs: 60_000 });
    await a.gate.close();
    a.clock.advance(30_000);
    const b = await bot({}, { clock: a.clock, store: a.store });
    expect(b.gate.pending()).toMatchObject([{ id, expiresAt: 1_000_000 + 60_000 }]);
    a.clock.advance(29_999);
    expect(b.decided).toEqual([]);
    a.clock.advance(1);
    await Promise.resolve();
    expect(await b.gate.reconcile(id)).toMatchObject({ outcome: 'timed_out' });
    expect(b.clock.pendingTimers()).toBe(0);
  });

  it(`${cite('TOOL-08')} takes no inherited Object.prototype member for a resume handler`, async () => {
    for (const name of ['toString', 'constructor', 'hasOwnProperty', 'valueOf', '__proto__']) {
      const a = await bot();
      const action = { name, args: {} };
      const { id } = await a.ask({ action });
      await a.gate.close();
      const b = await bot({ resume: {} }, { clock: a.clock, store: a.store });
      const decided = nextDecision(b);
      await b.channel.say('g1', 'alice', '确认');
      await decided;
      expect(b.decided, name).toMatchObject([{ id, outcome: 'aborted', reason: 'expired' }]);
      expect(await b.gate.authorize(id, action)).toMatchObject({ ok: false });
    }
  });
});

function nextDecision(b: Bot): Promise<void> {
  return new Promise((resolve) => {
    const off = b.gate.on('decided', () => {
      off();
      resolve();
    });
  });
}

/** The `index`-th permutation of 0..n-1 (factorial number system). */
function permute(n: number, index: number): number[] {
  const items = Array.from({ length: n }, (_, i) => i);
  const out: number[] = [];
  let rest = index;
  for (let size = n; size > 0; size--) {
    let f = 1;
    for (let i = 2; i < size; i++) f *= i;
    out.push(items.splice(Math.floor(rest / f), 1)[0] as number);
    rest %= f;
  }
  return out;
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}
