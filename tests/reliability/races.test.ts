import { fc, test } from '@fast-check/vitest';
import { createMessageBus } from '@parley/bus';
import { type ConfirmDecision, createConfirmGate } from '@parley/confirm';
import {
  createManualClock,
  createMemoryStore,
  createSequentialIds,
  type ManualClock,
  type Store,
} from '@parley/core';
import {
  type CorrelateMessage,
  type Correlator,
  createCorrelator,
  type ReceiveResult,
  CORRELATE_REFUSAL_CODES,
  shutdownProtocol,
} from '@parley/correlate';
import { createFakeChannel } from '@parley/testing';
import { describe, expect } from 'vitest';
import { cite } from './catalogue.js';
import { FULL, runs } from './config.js';

// Races under fc.scheduler: every store call of the components waits for the scheduler twice
// (before it runs and before its answer returns), and the competing actions start in an order the
// scheduler picks. Whatever the order, exactly one transition leaves pending, the losers come back
// as counted refusals or no-ops, and nothing throws.

const TEST_TIMEOUT_MS = FULL ? 1_800_000 : 60_000;
const DEADLINE_MS = 10_000;

/** Runs scheduled tasks until none is left even after pending promise callbacks have run. */
async function drain(s: fc.Scheduler): Promise<void> {
  do {
    await s.waitAll();
    await new Promise<void>((resolve) => setImmediate(resolve));
  } while (s.count() > 0);
}

/** A store whose every call is delayed by the scheduler before it runs and before it answers. */
function scheduledStore(inner: Store, s: fc.Scheduler): Store {
  const gate = (): Promise<void> => s.schedule(Promise.resolve());
  const wrap =
    <A extends unknown[], R>(f: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      await gate();
      const result = await f(...args);
      await gate();
      return result;
    };
  return {
    get: wrap(inner.get.bind(inner)),
    getEntry: wrap(inner.getEntry.bind(inner)),
    set: wrap(inner.set.bind(inner)),
    delete: wrap(inner.delete.bind(inner)),
    compareAndSet: wrap(inner.compareAndSet.bind(inner)),
    async *list(prefix) {
      await gate();
      yield* inner.list(prefix);
    },
    watch: (prefix, listener, options) =>
      (inner.watch as NonNullable<Store['watch']>)(prefix, listener, options),
    close: () => inner.close(),
  };
}

const CORRELATOR_ACTIONS = [
  'reply',
  'duplicate',
  'replyB',
  'timeout',
  'abort',
  'cancel',
  'restore',
  'crashA',
] as const;
type CorrelatorAction = (typeof CORRELATOR_ACTIONS)[number];

describe('correlator races', () => {
  test.prop([fc.scheduler(), fc.shuffledSubarray([...CORRELATOR_ACTIONS], { minLength: 2 }), fc.boolean()], {
    numRuns: runs(300),
  })(
    `${cite('RACE-01', 'SETTLE-03')} settle a request once whatever wins among reply, timeout, abort, cancel, duplicate and restore`,
    async (s, actions, approve) => {
      const clock = createManualClock({ now: 0 });
      const store = scheduledStore(createMemoryStore({ clock }), s);
      const ids = createSequentialIds('r');
      const local: string[] = [];
      const remote: string[] = [];
      const instances: Correlator[] = [];
      const make = (): Correlator => {
        const c = createCorrelator({
          self: 'lead',
          protocols: [shutdownProtocol],
          send: () => {},
          clock,
          generateId: ids,
          store,
          timeoutMs: DEADLINE_MS,
          maxTotalMs: DEADLINE_MS,
        });
        c.on('settled', ({ request, remote: r }) => (r ? remote : local).push(request.state));
        instances.push(c);
        return c;
      };
      const a = make();
      let b: Correlator | undefined;
      const controller = new AbortController();
      const outcomes: string[] = [];
      a.request(shutdownProtocol, { to: 'alice', payload: {}, signal: controller.signal }).then(
        (r) => outcomes.push(r.state),
        (e: { code: string }) => outcomes.push(e.code),
      );
      await drain(s); // the request is written and sent
      const results: ReceiveResult[] = [];
      const response = (ok: boolean): CorrelateMessage => ({
        kind: 'response',
        request_id: 'r1',
        protocol: 'shutdown',
        from: 'alice',
        to: 'lead',
        response: { approve: ok },
      });
      let crashed = false;
      const act = async (action: CorrelatorAction): Promise<void> => {
        switch (action) {
          case 'reply':
            results.push(await a.receive(response(approve)));
            return;
          case 'duplicate':
            results.push(await a.receive(response(!approve)));
            return;
          case 'replyB':
            results.push(await (b ?? a).receive(response(approve)));
            return;
          case 'timeout':
            clock.advance(DEADLINE_MS);
            return;
          case 'abort':
            controller.abort();
            return;
          case 'cancel':
            await a.cancel('r1');
            return;
          case 'restore':
            b = make();
            await b.restore();
            return;
          case 'crashA':
            crashed = true;
            a.close();
            return;
        }
      };
      const running = actions.map((action) => s.schedule(Promise.resolve(action)).then(act));
      await s.waitFor(Promise.all(running));
      await drain(s);
      // Whatever is left expires; a fresh instance reads the one stored outcome.
      clock.advance(DEADLINE_MS);
      await drain(s);
      const reader = make();
      await s.waitFor(reader.restore());
      clock.advance(0); // a deadline that passed while nobody ran fires on the next tick
      await drain(s);
      const stored = reader.get('r1')?.state;
      expect(['approved', 'rejected', 'expired', 'cancelled']).toContain(stored);

      expect(local.length).toBeLessThanOrEqual(1); // one instance committed the one transition
      if (!crashed) expect(local).toHaveLength(1);
      const gaveUp = actions.includes('abort') || actions.includes('cancel');
      for (const state of local) expect(state).toBe(stored);
      // A caller that gave up settles its own copy as cancelled even when another write won.
      for (const state of remote) expect(gaveUp ? [stored, 'cancelled'] : [stored]).toContain(state);
      expect(outcomes.length).toBe(1); // the caller heard exactly once
      const heard = outcomes[0] as string;
      const expected = {
        approved: 'approved',
        rejected: 'rejected',
        expired: 'timeout',
        cancelled: 'cancelled',
      };
      // A caller that gave up hears `cancelled` even if another instance settled first; a crashed one hears `closed`.
      expect([
        expected[stored as keyof typeof expected],
        ...(gaveUp ? ['cancelled'] : []),
        ...(crashed ? ['closed'] : []),
      ]).toContain(heard);
      // Losers are refused and counted, never thrown.
      const refused = results.filter((r) => !r.ok);
      for (const r of refused) expect(CORRELATE_REFUSAL_CODES).toContain(r.ok ? '' : r.code);
      expect(refused.map((r) => (r.ok ? '' : r.code))).not.toContain('store_failed');
      const counted = instances.reduce(
        (n, c) => n + Object.values(c.stats().refused).reduce((x, y) => x + (y ?? 0), 0),
        0,
      );
      expect(counted).toBe(refused.length);
      const winners = results.filter((r) => r.ok);
      expect(winners.length).toBeLessThanOrEqual(1);
      for (const c of instances) {
        expect(c.stats().pending).toBe(0);
        c.close();
      }
      expect(clock.pendingTimers()).toBe(0);
    },
    TEST_TIMEOUT_MS,
  );
});

const GATE_ACTIONS = [
  'confirm',
  'cancel',
  'clickConfirm',
  'clickCancel',
  'timeout',
  'abort',
  'chat',
] as const;
type GateAction = (typeof GATE_ACTIONS)[number];

describe('confirmation races', () => {
  test.prop([fc.scheduler(), fc.shuffledSubarray([...GATE_ACTIONS], { minLength: 2 })], {
    numRuns: runs(300),
  })(
    `${cite('RACE-02')} record one decision whatever wins among replies, clicks, timeout and abort, and authorise it once`,
    async (s, actions) => {
      const clock: ManualClock = createManualClock({ now: 1_000 });
      const store = scheduledStore(createMemoryStore({ clock }), s);
      const bus = createMessageBus({ clock });
      const channel = createFakeChannel({ channel: 'feishu', clock });
      await bus.attach(channel);
      const gate = createConfirmGate({
        bus,
        clock,
        store,
        generateId: createSequentialIds('cfm_'),
        timeoutMs: 60_000,
      });
      const ready = gate.ready;
      await s.waitFor(ready);
      const action = { name: 'sql.delete', args: { sql: 'DELETE FROM t' } };
      const controller = new AbortController();
      const decisions: ConfirmDecision[] = [];
      const decided = gate.request({
        sessionKey: 'feishu:g1',
        action,
        summary: 'DELETE FROM t',
        requester: 'alice',
        signal: controller.signal,
      });
      void decided.then((d) => decisions.push(d));
      await drain(s); // prompted and persisted
      expect(gate.pending()).toHaveLength(1);
      const statuses: string[] = [];
      const act = async (what: GateAction): Promise<void> => {
        switch (what) {
          case 'confirm':
            statuses.push((await channel.say('g1', 'alice', '确认')).status);
            return;
          case 'cancel':
            statuses.push((await channel.say('g1', 'alice', '取消')).status);
            return;
          case 'chat':
            statuses.push((await channel.say('g1', 'bob', 'lunch?')).status);
            return;
          case 'clickConfirm':
            await channel.clickButton('g1', 'alice', '确认 Confirm');
            return;
          case 'clickCancel':
            await channel.clickButton('g1', 'alice', '取消 Cancel');
            return;
          case 'timeout':
            clock.advance(60_000);
            return;
          case 'abort':
            controller.abort();
            return;
        }
      };
      const running = actions.map((what) => s.schedule(Promise.resolve(what)).then(act));
      await s.waitFor(Promise.all(running));
      await drain(s);
      await drain(s);
      await s.waitFor(decided);
      const recorded: ConfirmDecision[] = [];
      const audit = (async () => {
        for await (const d of gate.audit()) recorded.push(d);
      })();
      await s.waitFor(audit);
      expect(recorded).toHaveLength(1);
      expect(decisions).toHaveLength(1);
      expect(decisions[0]).toEqual(recorded[0]);
      // Two concurrent authorisations: at most one passes, and only for a confirmation.
      const auths = Promise.all([
        gate.authorize(recorded[0] as ConfirmDecision, action),
        gate.authorize('cfm_1', action),
      ]);
      const [first, second] = await s.waitFor(auths);
      const passed = [first, second].filter((r) => r.ok).length;
      expect(passed).toBe(recorded[0]?.outcome === 'confirmed' ? 1 : 0);
      // Bob's chat always reaches the agent; at most one of alice's replies decided.
      expect(bus.size.inbound).toBe(statuses.filter((x) => x === 'queued').length);
      if (actions.includes('chat')) expect(bus.size.inbound).toBeGreaterThanOrEqual(1);
      expect(gate.pending()).toEqual([]);
      const closing = gate.close();
      await s.waitFor(closing);
      expect(clock.pendingTimers()).toBe(0);
    },
    TEST_TIMEOUT_MS,
  );
});
