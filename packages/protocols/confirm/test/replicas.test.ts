import {
  createManualClock,
  createMemoryStore,
  type Store,
  type StoreChange,
  type StoreWatchOptions,
} from '@parley/core';
import { describe, expect, it } from 'vitest';
import { type ConfirmDecision, DEFAULT_AFTER_DECISION_MS } from '../src/index.js';
import { ACTION, buttonToken, setup, storedData } from './helpers.js';

/** Lets every pending store operation and the notifications it causes run (no time passes). */
const drain = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Two gates (replicas) on one memory store, each with its own bus and channel; B follows A's prompt. */
async function replicas(options: Parameters<typeof setup>[0] = {}) {
  const a = await setup(options);
  const b = await a.restart();
  await drain();
  return { a, b };
}

async function audit(store: Store): Promise<unknown[]> {
  const list: unknown[] = [];
  for await (const item of store.list('confirm:decision:')) list.push(await storedData(store, item.key));
  return list;
}

/**
 * A memory store whose notifications can be muted (a lost pub/sub message) and whose resync is
 * triggered by hand; `store` and `other` are two connections to it whose reads fail on their own.
 */
function lossyStore() {
  const clock = createManualClock({ now: 1_000_000 });
  const inner = createMemoryStore({ clock });
  const watchers = new Set<{ prefix: string; options: StoreWatchOptions }>();
  let muted = false;
  const reads: string[] = []; // the keys read one by one (get, getEntry), on either connection
  const connect = (failing: Set<'get' | 'getEntry' | 'list'>): Store => ({
    get: (key) => {
      reads.push(key);
      return failing.has('get') ? Promise.reject(new Error('get failed')) : inner.get(key);
    },
    getEntry: (key) => {
      reads.push(key);
      return failing.has('getEntry') ? Promise.reject(new Error('getEntry failed')) : inner.getEntry(key);
    },
    set: inner.set,
    delete: inner.delete,
    compareAndSet: inner.compareAndSet,
    async *list(prefix) {
      if (failing.has('list')) throw new Error('list failed');
      yield* inner.list(prefix);
    },
    close: inner.close,
    watch(prefix, listener, options = {}) {
      const watcher = { prefix, options };
      watchers.add(watcher);
      const off = inner.watch?.(prefix, (change: StoreChange) => {
        if (!muted) listener(change);
      });
      return () => {
        watchers.delete(watcher);
        off?.();
      };
    },
  });
  const failing = new Set<'get' | 'getEntry' | 'list'>();
  const otherFailing = new Set<'get' | 'getEntry' | 'list'>();
  return {
    clock,
    store: connect(failing),
    other: connect(otherFailing),
    watchers,
    reads,
    failing,
    otherFailing,
    mute: (value: boolean) => {
      muted = value;
    },
    reconnect() {
      for (const { prefix, options } of watchers) options.onResync?.({ prefix, reason: 'reconnected' });
    },
  };
}

describe('cross-replica settlement through Store.watch', () => {
  it('settles the waiting request of gate A when the reply reaches gate B, with no reconcile', async () => {
    const { a, b } = await replicas();
    const { decision, id } = await a.ask();
    await drain();
    expect([b.gate.followed().length, b.gate.pending()]).toEqual([1, []]); // followed, not held
    const result = await b.channel.say('g1', 'alice', '确认');
    expect(result.status).toBe('intercepted');
    expect(await decision).toMatchObject({ id, outcome: 'confirmed', reason: 'reply', decidedBy: 'alice' });
    expect(a.bus.size.inbound + b.bus.size.inbound).toBe(0);
    expect(a.decided).toHaveLength(1);
    expect(a.gate.pending()).toEqual([]);
    expect([b.gate.followed().length, b.gate.pending()]).toEqual([0, []]);
    expect(await a.gate.authorize(id, ACTION)).toMatchObject({ ok: true });
  });

  it('records exactly one decision when the same reply reaches both buses', async () => {
    const { a, b } = await replicas();
    const { decision, id } = await a.ask();
    await drain();
    const event = { eventId: 'evt_dup' };
    const results = await Promise.all([
      a.channel.say('g1', 'alice', '确认', event),
      b.channel.say('g1', 'alice', '确认', event),
    ]);
    expect(results.map((r) => r.status)).toEqual(['intercepted', 'intercepted']);
    const final = await decision;
    await drain();
    expect(await audit(a.store)).toEqual([final]);
    expect(a.decided).toEqual([final]);
    expect(b.decided.every((d) => d.decidedAt === final.decidedAt && d.id === id)).toBe(true);
    const uses = await Promise.all([a.gate.authorize(id, ACTION), b.gate.authorize(id, ACTION)]);
    expect(uses.filter((use) => use.ok)).toHaveLength(1);
  });

  it('settles gate A from a card click on gate B without reconcile', async () => {
    const { a, b } = await replicas({ secret: 's' });
    const { decision } = await a.ask();
    await b.channel.click('g1', 'alice', { confirmation: buttonToken(a.channel, 'cancel') });
    expect(await decision).toMatchObject({ outcome: 'cancelled', reason: 'card' });
  });

  it('stops following a confirmation once its owner settles it, absorbing answers to it like the owner does', async () => {
    const { a, b } = await replicas();
    const { decision } = await a.ask();
    await drain();
    await a.channel.say('g1', 'alice', '取消');
    await decision;
    await drain();
    expect(b.gate.pending()).toEqual([]);
    expect(b.decided).toEqual([]);
    // Within afterDecisionMs an answer to it is consumed on either replica; other chat passes.
    expect((await b.channel.say('g1', 'alice', '确认')).status).toBe('intercepted');
    expect((await a.channel.say('g1', 'alice', '确认')).status).toBe('intercepted');
    expect(b.events.ignored.map((event) => event.code)).toEqual(['after_decision']);
    expect((await b.channel.say('g1', 'alice', 'what about the logs table?')).status).toBe('queued');
    b.clock.advance(DEFAULT_AFTER_DECISION_MS);
    expect((await b.channel.say('g1', 'alice', '确认')).status).toBe('queued');
  });

  it('leaves the timeout to the owner: only it records and announces it', async () => {
    const { a, b } = await replicas();
    const { decision } = await a.ask();
    await drain();
    const sentByB = b.channel.sent.length;
    a.clock.advance(300_000);
    expect(await decision).toMatchObject({ outcome: 'timed_out' });
    await drain();
    expect(b.gate.pending()).toEqual([]);
    expect(b.channel.sent).toHaveLength(sentByB);
    expect(a.channel.lastSent('g1')?.text).toContain('超时');
    expect(a.clock.pendingTimers()).toBe(0);
  });

  it('shares multi-step progress: step 1 answered on B, step 2 on A', async () => {
    const steps = [
      { prompt: 'Confirm #1 (YES)', expect: 'YES' },
      { prompt: 'Confirm #2 (YES)', expect: 'YES' },
    ];
    const { a, b } = await replicas();
    const { decision } = await a.ask({ steps });
    await drain();
    const next = b.nextPrompt();
    await b.channel.say('g1', 'alice', 'YES');
    expect(await next).toMatchObject({ step: 1 });
    expect(b.channel.lastSent('g1')?.text).toBe('Confirm #2 (YES)');
    await drain();
    a.clock.advance(1);
    await a.channel.say('g1', 'alice', 'YES');
    expect(await decision).toMatchObject({ outcome: 'confirmed', reason: 'reply' });
  });

  it('runs the resume handler of a restored confirmation that another gate decided, once', async () => {
    const before = await setup();
    const other = await before.restart(); // a live replica without resume handlers
    await drain();
    await before.ask();
    await before.gate.close(); // the process that asked is gone
    const resumed: ConfirmDecision[] = [];
    const after = await before.restart({ resume: { 'sql.delete': (d) => void resumed.push(d) } });
    await drain();
    expect(other.gate.followed().length).toBe(1);
    await other.channel.say('g1', 'alice', '确认');
    await drain();
    expect(resumed).toMatchObject([{ id: 'cfm_1', outcome: 'confirmed', decidedBy: 'alice' }]);
    expect(resumed).toHaveLength(1);
    expect(after.gate.pending()).toEqual([]);
  });
});

describe('resync', () => {
  it('picks up, on reconnect, a decision whose notification was lost', async () => {
    const lossy = lossyStore();
    const a = await setup({}, lossy);
    const b = await a.restart();
    await drain();
    const { decision, id } = await a.ask();
    await drain();
    lossy.mute(true);
    await b.channel.say('g1', 'alice', '确认');
    await drain();
    expect(a.gate.pending()).toMatchObject([{ id }]); // A has not heard
    lossy.mute(false);
    lossy.reconnect();
    expect(await decision).toMatchObject({ outcome: 'confirmed' });
  });

  it('follows, on reconnect, a confirmation prompted while notifications were lost', async () => {
    const lossy = lossyStore();
    const a = await setup({}, lossy);
    const b = await a.restart();
    await drain();
    lossy.mute(true);
    const { decision, id } = await a.ask();
    await drain();
    expect(b.gate.pending()).toEqual([]);
    lossy.mute(false);
    lossy.reconnect();
    await drain();
    expect(b.gate.followed().length).toBe(1);
    lossy.reconnect(); // read again: the same version changes nothing
    await drain();
    expect(b.gate.followed().length).toBe(1);
    a.clock.advance(1);
    expect((await b.channel.say('g1', 'alice', '确认')).status).toBe('intercepted');
    expect(await decision).toMatchObject({ id, outcome: 'confirmed' }); // its delivery was known on B
  });

  it('follows, at start, a confirmation another live replica prompted, and lets its reply settle it there', async () => {
    const a = await setup({ replicaId: 'pod-a' });
    const { decision, id } = await a.ask();
    const b = await a.restart({ replicaId: 'pod-b' });
    expect([b.gate.followed().length, b.gate.pending()]).toEqual([1, []]);
    a.clock.advance(1);
    await b.channel.say('g1', 'alice', '确认');
    expect(await decision).toMatchObject({ id, outcome: 'confirmed', decidedBy: 'alice' });
  });

  it("reads another gate's pending records once, by the listing: at start, then their decisions; on reconnect, nothing more of those followed at that version", async () => {
    const lossy = lossyStore();
    const a = await setup({ replicaId: 'pod-a' }, lossy);
    lossy.mute(true); // B hears nothing of A's prompts: only its listings find them
    const asked = [
      await a.ask(),
      await a.ask({ sessionKey: 'feishu:g2' }),
      await a.ask({ sessionKey: 'feishu:g3' }),
    ];
    await drain();
    lossy.reads.length = 0;
    const b = await a.restart({ replicaId: 'pod-b' });
    await drain();
    expect(b.gate.followed().length).toBe(3);
    const pendingReads = () => lossy.reads.filter((key) => key.startsWith('confirm:pending:'));
    const decisionReads = () => lossy.reads.filter((key) => key.startsWith('confirm:decision:'));
    expect(pendingReads()).toEqual([]);
    expect(decisionReads().sort()).toEqual(asked.map(({ id }) => `confirm:decision:${id}`).sort());
    lossy.reads.length = 0;
    lossy.reconnect();
    await drain();
    // A checks the three it holds for a decision and re-reads them (another gate may have written
    // them); B lists them, and reads nothing more of those it follows at the version listed
    const ids = (prefix: string) => asked.map(({ id }) => `${prefix}${id}`).sort();
    expect(pendingReads().sort()).toEqual(ids('confirm:pending:'));
    expect(decisionReads().sort()).toEqual(ids('confirm:decision:'));
    expect(b.gate.followed().length).toBe(3);
    lossy.mute(false);
    a.clock.advance(1);
    await b.channel.say('g2', 'alice', '确认');
    expect(await asked[1]?.decision).toMatchObject({ id: asked[1]?.id, outcome: 'confirmed' });
  });

  it('takes, on reconnect, a followed confirmation whose record moved on unheard, and checks it for a decision', async () => {
    const lossy = lossyStore();
    const steps = [
      { prompt: 'Confirm #1 (YES)', expect: 'YES' },
      { prompt: 'Confirm #2 (YES)', expect: 'YES' },
    ];
    const a = await setup({ replicaId: 'pod-a' }, lossy);
    const b = await a.restart({ replicaId: 'pod-b' });
    const { decision, id } = await a.ask({ steps });
    await drain();
    expect(b.gate.followed().map((f) => f.id)).toEqual([id]);
    const decisionReads = () => lossy.reads.filter((key) => key === `confirm:decision:${id}`).length;
    lossy.reads.length = 0;
    lossy.reconnect();
    await drain();
    expect(decisionReads()).toBe(1); // A's, for the one it holds; B follows it at the version listed
    lossy.mute(true);
    a.clock.advance(1);
    await a.channel.say('g1', 'alice', 'YES'); // step 1 answered on A: a newer record B does not hear of
    await drain();
    lossy.mute(false);
    lossy.reads.length = 0;
    lossy.reconnect();
    await drain();
    expect(decisionReads()).toBe(2); // A's, and B's for the newer version
    a.clock.advance(1);
    await b.channel.say('g1', 'alice', 'YES'); // step 2 on B: it knows step 1 was answered
    expect(await decision).toMatchObject({ id, outcome: 'confirmed' });
  });

  it('unsubscribes on close', async () => {
    const lossy = lossyStore();
    const a = await setup({}, lossy);
    expect(lossy.watchers.size).toBe(1);
    await a.gate.close();
    expect(lossy.watchers.size).toBe(0);
    lossy.reconnect();
    await drain();
    expect(a.events.error).toEqual([]);
  });

  it('reports store failures while following other gates, and keeps waiting', async () => {
    const lossy = lossyStore();
    const a = await setup({}, lossy);
    const b = await a.restart({ store: lossy.other }); // its own connection: its reads fail alone
    await drain();
    lossy.otherFailing.add('getEntry');
    const { decision, id } = await a.ask({
      steps: [
        { prompt: 'YES?', expect: 'YES' },
        { prompt: 'again', expect: 'YES' },
      ],
    });
    await drain();
    expect(b.events.error.length).toBeGreaterThanOrEqual(1); // could not read A's new pending record
    expect(b.gate.followed().length).toBe(0);
    lossy.otherFailing.delete('getEntry');
    lossy.reconnect();
    await drain();
    expect(b.gate.followed().length).toBe(1);
    lossy.failing.add('getEntry');
    await b.channel.say('g1', 'alice', 'YES'); // B writes step 2; A cannot read it
    await drain();
    const unread = a.events.error.length;
    expect(unread).toBeGreaterThanOrEqual(1);
    lossy.failing.add('get').add('list'); // and still getEntry
    lossy.reconnect();
    await drain();
    expect(a.events.error.length).toBeGreaterThanOrEqual(unread + 2); // the decision read, the record read and the list failed
    lossy.failing.clear();
    lossy.reconnect(); // the next resync reads B's step 2
    await drain();
    a.clock.advance(1);
    await a.channel.say('g1', 'alice', 'YES');
    expect(await decision).toMatchObject({ id, outcome: 'confirmed' });
  });
});
