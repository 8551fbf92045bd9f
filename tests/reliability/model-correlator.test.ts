import { fc, test } from '@fast-check/vitest';
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
  shutdownProtocol,
} from '@parley/correlate';
import { describe, expect } from 'vitest';
import { cite } from './catalogue.js';
import { FULL, runs } from './config.js';

// Model-based test of the correlator (fc.commands): every command runs against a durable
// correlator on a memory store and against a small reference model; the two must agree on every
// result, refusal code and state. `Restart` closes the correlator in the middle of the sequence and
// starts a new instance on the same store (`restore()`), which must carry on exactly where the
// model says: persisted absolute deadlines, one settlement per request across instances.

const TIMEOUT_MS = 10_000;
const MAX_TOTAL_MS = 30_000;
const RETAIN_MS = 60_000;
const TEST_TIMEOUT_MS = FULL ? 1_800_000 : 60_000;

type State = 'pending' | 'approved' | 'rejected' | 'expired' | 'cancelled';

interface ModelRequest {
  state: State;
  readonly createdAt: number;
  deadlineAt: number;
  readonly maxAt: number;
  readonly timeoutMs: number;
  /** The instance whose promise and signal belong to it. */
  readonly instance: number;
  /** When it settled, and when the command that settled it ended (the store write's time). */
  settledAt?: number;
  writtenAt?: number;
}

interface Model {
  now: number;
  instance: number;
  readonly requests: Map<string, ModelRequest>;
  count: number;
}

interface Real {
  readonly clock: ManualClock;
  readonly store: Store;
  readonly ids: () => string;
  correlator: Correlator;
  instance: number;
  readonly sent: CorrelateMessage[];
  readonly controllers: Map<string, AbortController>;
  readonly outcomes: Map<string, string[]>;
  readonly settledEvents: Map<string, number>;
}

async function flush(): Promise<void> {
  for (let i = 0; i < 30; i++) await Promise.resolve();
}

function start(real: Omit<Real, 'correlator' | 'instance'> & Partial<Real>): Correlator {
  const correlator = createCorrelator({
    self: 'lead',
    protocols: [shutdownProtocol],
    send: (message) => void real.sent.push(message),
    clock: real.clock,
    generateId: real.ids,
    store: real.store,
    timeoutMs: TIMEOUT_MS,
    maxTotalMs: MAX_TOTAL_MS,
    retainSettledMs: RETAIN_MS,
  });
  correlator.on('settled', ({ request }) =>
    real.settledEvents.set(request.id, (real.settledEvents.get(request.id) ?? 0) + 1),
  );
  return correlator;
}

/** What the model says a refusal or success is, or `either` inside the store's retention slack. */
function known(request: ModelRequest | undefined, now: number): 'unknown' | 'known' | 'either' {
  if (request === undefined) return 'unknown';
  if (request.state === 'pending') return 'known';
  const settledAt = request.settledAt as number;
  if (now < settledAt + RETAIN_MS) return 'known';
  return now < (request.writtenAt as number) + RETAIN_MS ? 'either' : 'unknown';
}

function refusalOf(request: ModelRequest): string {
  return request.state === 'expired' ? 'late' : 'duplicate';
}

function expectCode(result: ReceiveResult, expected: string | readonly string[]): void {
  const code = result.ok ? 'ok' : result.code;
  expect(typeof expected === 'string' ? [expected] : expected).toContain(code);
}

function settleModel(model: Model, request: ModelRequest, state: State, at = model.now): void {
  request.state = state;
  request.settledAt = at;
  request.writtenAt = model.now;
}

function pick(model: Model, index: number): string {
  const ids = [...model.requests.keys()];
  return index >= ids.length ? 'r_unknown' : (ids[index] as string);
}

function reply(id: string, response: unknown, from = 'alice'): CorrelateMessage {
  return { kind: 'response', request_id: id, protocol: 'shutdown', from, to: 'lead', response };
}

/** A command checks the whole agreement after it runs. */
abstract class Cmd implements fc.AsyncCommand<Model, Real> {
  abstract check(model: Readonly<Model>): boolean;
  abstract exec(model: Model, real: Real): Promise<void>;
  async run(model: Model, real: Real): Promise<void> {
    await this.exec(model, real);
    expectAgreement(model, real);
  }
}

class RequestCmd extends Cmd {
  constructor(readonly timeoutMs: number | undefined) {
    super();
  }
  check(model: Readonly<Model>): boolean {
    return model.requests.size < 12;
  }
  async exec(model: Model, real: Real): Promise<void> {
    const id = `r${++model.count}`;
    const controller = new AbortController();
    real.controllers.set(id, controller);
    real.outcomes.set(id, []);
    const before = real.sent.length;
    real.correlator
      .request(shutdownProtocol, {
        to: 'alice',
        payload: { reason: id },
        signal: controller.signal,
        ...(this.timeoutMs === undefined ? {} : { timeoutMs: this.timeoutMs }),
      })
      .then(
        (r) => real.outcomes.get(id)?.push(r.state),
        (e: { code: string }) => real.outcomes.get(id)?.push(e.code),
      );
    await flush();
    const maxAt = model.now + MAX_TOTAL_MS;
    const ms = this.timeoutMs ?? TIMEOUT_MS;
    const request: ModelRequest = {
      state: 'pending',
      createdAt: model.now,
      deadlineAt: Math.min(model.now + ms, maxAt),
      maxAt,
      timeoutMs: ms,
      instance: model.instance,
    };
    model.requests.set(id, request);
    expect(real.sent.slice(before)).toEqual([
      expect.objectContaining({ kind: 'request', request_id: id, deadline_at: request.deadlineAt }),
    ]);
  }
  override toString = (): string => `request(${this.timeoutMs ?? 'default'})`;
}

class ReplyCmd extends Cmd {
  constructor(
    readonly index: number,
    readonly response: 'approve' | 'reject' | 'invalid',
    readonly from: 'alice' | 'mallory',
  ) {
    super();
  }
  check(): boolean {
    return true;
  }
  async exec(model: Model, real: Real): Promise<void> {
    const id = pick(model, this.index);
    const response =
      this.response === 'invalid' ? { approve: 'maybe' } : { approve: this.response === 'approve' };
    const result = await real.correlator.receive(reply(id, response, this.from));
    await flush();
    const request = model.requests.get(id);
    const status = known(request, model.now);
    if (status === 'unknown' || request === undefined) return expectCode(result, 'unknown_request');
    const expected = (): string => {
      if (this.from !== 'alice') return 'wrong_sender';
      if (request.state !== 'pending') return refusalOf(request);
      return this.response === 'invalid' ? 'invalid_response' : 'ok';
    };
    const code = expected();
    expectCode(result, status === 'either' ? [code, 'unknown_request'] : code);
    if (code === 'ok') settleModel(model, request, this.response === 'approve' ? 'approved' : 'rejected');
  }
  override toString = (): string => `reply(#${this.index}, ${this.response}, ${this.from})`;
}

class ProgressCmd extends Cmd {
  constructor(readonly index: number) {
    super();
  }
  check(): boolean {
    return true;
  }
  async exec(model: Model, real: Real): Promise<void> {
    const id = pick(model, this.index);
    const result = await real.correlator.receive({
      kind: 'progress',
      request_id: id,
      protocol: 'shutdown',
      from: 'alice',
      to: 'lead',
    });
    await flush();
    const request = model.requests.get(id);
    const status = known(request, model.now);
    if (status === 'unknown' || request === undefined) return expectCode(result, 'unknown_request');
    const code = request.state === 'pending' ? 'ok' : refusalOf(request);
    expectCode(result, status === 'either' ? [code, 'unknown_request'] : code);
    if (code === 'ok') {
      request.deadlineAt = Math.max(
        Math.min(model.now + request.timeoutMs, request.maxAt),
        request.deadlineAt,
      );
    }
  }
  override toString = (): string => `progress(#${this.index})`;
}

class CancelCmd extends Cmd {
  constructor(readonly index: number) {
    super();
  }
  check(): boolean {
    return true;
  }
  async exec(model: Model, real: Real): Promise<void> {
    const id = pick(model, this.index);
    const cancelled = await real.correlator.cancel(id, 'changed my mind');
    await flush();
    const request = model.requests.get(id);
    expect(cancelled).toBe(request?.state === 'pending');
    if (request?.state === 'pending') settleModel(model, request, 'cancelled');
  }
  override toString = (): string => `cancel(#${this.index})`;
}

class AbortCmd extends Cmd {
  constructor(readonly index: number) {
    super();
  }
  check(model: Readonly<Model>): boolean {
    return model.requests.size > 0;
  }
  async exec(model: Model, real: Real): Promise<void> {
    const id = pick(model, this.index % model.requests.size);
    real.controllers.get(id)?.abort(new Error('user gave up'));
    await flush();
    const request = model.requests.get(id) as ModelRequest;
    // A signal belongs to the instance that sent the request; a restarted one does not hear it.
    if (request.state === 'pending' && request.instance === model.instance)
      settleModel(model, request, 'cancelled');
  }
  override toString = (): string => `abort(#${this.index})`;
}

class AdvanceCmd extends Cmd {
  constructor(readonly ms: number) {
    super();
  }
  check(): boolean {
    return true;
  }
  async exec(model: Model, real: Real): Promise<void> {
    real.clock.advance(this.ms);
    model.now += this.ms;
    await flush();
    for (const request of model.requests.values()) {
      if (request.state === 'pending' && request.deadlineAt <= model.now)
        settleModel(model, request, 'expired', request.deadlineAt);
    }
  }
  override toString = (): string => `advance(${this.ms})`;
}

class RestartCmd extends Cmd {
  check(): boolean {
    return true;
  }
  async exec(model: Model, real: Real): Promise<void> {
    real.correlator.close();
    await flush();
    real.instance++;
    real.correlator = start(real);
    const restored = await real.correlator.restore();
    await flush();
    model.instance++;
    const pending = [...model.requests.values()].filter((r) => r.state === 'pending');
    expect(restored).toBe(pending.length);
    // The promises of the closed instance were rejected with `closed`; their requests carry on.
    for (const [id, request] of model.requests) {
      if (request.state === 'pending' && request.instance === model.instance - 1)
        expect(real.outcomes.get(id)).toEqual(['closed']);
    }
  }
  override toString = (): string => 'restart';
}

function expectAgreement(model: Model, real: Real): void {
  const pending = [...model.requests.values()].filter((r) => r.state === 'pending').length;
  expect(real.correlator.stats().pending).toBe(pending);
  // One timer serves every deadline, one background timer sweeps the audit records.
  expect(real.clock.pendingTimers()).toBeLessThanOrEqual(2);
  for (const [id, request] of model.requests) {
    const outcomes = real.outcomes.get(id) ?? [];
    expect(outcomes.length, id).toBeLessThanOrEqual(1);
    expect(real.settledEvents.get(id) ?? 0, id).toBe(request.state === 'pending' ? 0 : 1);
    if (request.state === 'pending') {
      expect(real.correlator.get(id)).toMatchObject({ state: 'pending', deadlineAt: request.deadlineAt });
      continue;
    }
    if (known(request, model.now) === 'known') expect(real.correlator.get(id)?.state, id).toBe(request.state);
    if (request.instance === model.instance || outcomes[0] !== 'closed') {
      const expected = {
        approved: 'approved',
        rejected: 'rejected',
        expired: 'timeout',
        cancelled: 'cancelled',
      };
      if (outcomes[0] !== 'closed') expect(outcomes, id).toEqual([expected[request.state]]);
    }
  }
}

const commands = fc.commands(
  [
    fc.option(fc.integer({ min: 1_000, max: 40_000 }), { nil: undefined }).map((ms) => new RequestCmd(ms)),
    fc
      .tuple(
        fc.nat(13),
        fc.constantFrom('approve', 'reject', 'invalid') as fc.Arbitrary<'approve' | 'reject' | 'invalid'>,
        fc.constantFrom('alice', 'alice', 'alice', 'mallory') as fc.Arbitrary<'alice' | 'mallory'>,
      )
      .map(([i, response, from]) => new ReplyCmd(i, response, from)),
    fc.nat(13).map((i) => new ProgressCmd(i)),
    fc.nat(13).map((i) => new CancelCmd(i)),
    fc.nat(13).map((i) => new AbortCmd(i)),
    fc.oneof(fc.integer({ min: 0, max: 12_000 }), fc.constant(RETAIN_MS)).map((ms) => new AdvanceCmd(ms)),
    fc.constant(new RestartCmd()),
  ],
  { maxCommands: 40 },
);

describe('the correlator against a reference model', () => {
  test.prop([commands], { numRuns: runs(120) })(
    `${cite('MODEL-01', 'SETTLE-03')} agrees with the model through restarts on the same store`,
    async (cmds) => {
      const clock = createManualClock({ now: 0 });
      const base = {
        clock,
        store: createMemoryStore({ clock }),
        ids: createSequentialIds('r'),
        sent: [] as CorrelateMessage[],
        controllers: new Map<string, AbortController>(),
        outcomes: new Map<string, string[]>(),
        settledEvents: new Map<string, number>(),
      };
      const real: Real = { ...base, correlator: start(base), instance: 0 };
      const model: Model = { now: 0, instance: 0, requests: new Map(), count: 0 };
      await fc.asyncModelRun(() => ({ model, real }), cmds);
      // Past every maximum and every retention: everything settled exactly once, nothing is left.
      await new AdvanceCmd(MAX_TOTAL_MS).run(model, real);
      expectAgreement(model, real);
      await new AdvanceCmd(RETAIN_MS).run(model, real);
      expect(real.correlator.stats()).toMatchObject({ pending: 0, settled: 0 });
      expect(clock.pendingTimers()).toBe(0);
      real.correlator.close();
    },
    TEST_TIMEOUT_MS,
  );
});
