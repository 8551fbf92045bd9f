// biome-ignore-all lint/correctness/noUnusedVariables: examples declare values to show their types
// biome-ignore-all lint/correctness/noUnusedFunctionParameters: examples show signatures
// Every TSDoc @example of @parley/testing, compiled and run; a "// value" comment after console.log is asserted.
// Generated from the sources' TSDoc; keep in step with them.
import { describe, expect, it } from 'vitest';
import {
  assertNoPendingTimers,
  assertNotSent,
  assertSent,
  type ButtonLabel,
  createFakeChannel,
  createFakePlatformOrder,
  type FakePlatformOrder,
  createFakeClock,
  createFakePlatform,
  createFakeStore,
  storeConformanceCases,
  type StoreConformanceCase,
  type StoreConformanceSubject,
  createFakeToolGate,
  createRecordingTransport,
  createRecordingHub,
  type HubEndpoint,
  type RecordingHub,
  type RecordingHubOptions,
  createScriptedModel,
  type DeliveryRecord,
  drainInbound,
  type ExecuteOptions,
  expectOutbox,
  type FakeChannel,
  type FakeChannelOptions,
  type FakeClock,
  type FakeInbound,
  type FakePlatform,
  type FakePlatformOptions,
  type FakeStore,
  type FakeStoreOptions,
  type FakeToolDecision,
  type FakeToolGate,
  type FaultOptions,
  type MessageMatcher,
  type ModelCall,
  type ModelCallContext,
  type ModelRule,
  type ModelStep,
  type OutboxExpectation,
  type OutboxFilter,
  type PendingTimer,
  type PlatformCall,
  type PlatformError,
  type PlatformErrorInit,
  type PlatformRequest,
  type PlatformResult,
  type PlatformStep,
  type RecordingTransport,
  type RecordingTransportOptions,
  type ReleaseOrder,
  type RequestMatcher,
  type ScriptedModel,
  type ScriptedModelOptions,
  type SendRecord,
  STORE_METHODS,
  type StoreCall,
  type StoreMethod,
  TESTING_ERROR_CODES,
  TestingError,
  type TestingErrorCode,
  TRANSPORT_FAULTS,
  type TransportDelivery,
  type TransportEndpoint,
  type TransportFault,
  type TransportRecord,
  kernelConformanceCases,
  type KernelConformanceCase,
  type KernelConformanceSubject,
} from '../src/index.js';
import { createMessageBus } from '@parley/bus';
import { type AttemptRequest, createConflictLoop, defineDetector, type Proposal } from '@parley/conflict';
import { createManualClock, createMemoryStore, isParleyError } from '@parley/core';
import { type CorrelateMessage, createCorrelator, shutdownProtocol } from '@parley/correlate';
import { expectPrinted, log } from '../../../../tests/support/printed.js';

describe('@parley/testing examples', () => {
  it('kernelConformanceCases, KernelConformanceCase and KernelConformanceSubject', async () => {
    const subject: KernelConformanceSubject = { store: createMemoryStore() };
    expect(subject.store).toBeDefined();
    for (const check of kernelConformanceCases()) {
      await check.run(async () => ({ store: createMemoryStore() }), { seed: 42, steps: 40 });
    }
    const names = kernelConformanceCases().map((c: KernelConformanceCase) => c.name);
    expect(names).toHaveLength(4);
  });

  it('MessageMatcher (assertions.ts)', async () => {
    const matchers: MessageMatcher[] = [
      '确认',
      /超时|timed out/,
      (m) => m.card !== undefined,
      { chatId: 'g1' },
    ];
  });

  it('assertSent (assertions.ts)', async () => {
    const bus = createMessageBus();
    const channel = createFakeChannel({ channel: 'feishu' });
    await bus.attach(channel);
    await bus.publishOutbound({ channel: 'feishu', chatId: 'g1', text: 'Reply 确认 to proceed' });
    const prompt = assertSent(channel, '确认', { chatId: 'g1' });
    log(prompt.sessionKey);
    expectPrinted('feishu:g1');
  });

  it('assertNotSent (assertions.ts)', async () => {
    const channel = createFakeChannel();
    assertNotSent(channel, /deleted/); // passes: nothing was sent
  });

  it('OutboxExpectation (assertions.ts)', async () => {
    const outbox: OutboxExpectation = expectOutbox(createFakeChannel(), { chatId: 'g1' });
    outbox.toBeEmpty();
  });

  it('expectOutbox (assertions.ts)', async () => {
    const bus = createMessageBus();
    const channel = createFakeChannel({ channel: 'tg' });
    await bus.attach(channel);
    await bus.publishOutbound({
      channel: 'tg',
      chatId: '42',
      text: 'Delete 3 posts?',
      card: {
        buttons: [
          { label: '确认', value: 'yes' },
          { label: '取消', value: 'no' },
        ],
      },
    });
    expectOutbox(channel, { chatId: '42' }).toHaveButtons(['确认', '取消']);
    expectOutbox(channel).toHaveLength(1);
  });

  it('drainInbound (bus.ts)', async () => {
    const bus = createMessageBus();
    const channel = createFakeChannel();
    await bus.attach(channel);
    await channel.say('g1', 'alice', 'one');
    await channel.say('g1', 'bob', 'two');
    log((await drainInbound(bus)).map((m) => m.text));
    expectPrinted("[ 'one', 'two' ]");
    log(await drainInbound(bus));
    expectPrinted('[]');
  });

  it('FakeInbound (channel-types.ts)', async () => {
    const edit: FakeInbound = { chatId: 'g1', senderId: 'alice', text: '确认', kind: 'edit' };
  });

  it('FakeChannelOptions (channel-types.ts)', async () => {
    const options: FakeChannelOptions = { channel: 'feishu', clock: createFakeClock(), echo: true };
  });

  it('DeliveryRecord (channel-types.ts)', async () => {
    const isDuplicate = (record: DeliveryRecord): boolean => record.duplicate;
  });

  it('SendRecord (channel-types.ts)', async () => {
    const failed = (records: readonly SendRecord[]) => records.filter((r) => !r.ok).length;
  });

  it('OutboxFilter (channel-types.ts)', async () => {
    const thread: OutboxFilter = { chatId: 'g1', threadId: 't1' };
  });

  it('ReleaseOrder (channel-types.ts)', async () => {
    const swapped: ReleaseOrder = [1, 0];
  });

  it('ButtonLabel (channel-types.ts)', async () => {
    const confirm: ButtonLabel = /^(确认|Confirm)$/;
  });

  it('FakeChat (channel-types.ts)', async () => {
    const channel = createFakeChannel();
    await createMessageBus().attach(channel);
    const g1 = channel.chat('g1');
    await g1.say('alice', 'hello');
    log(g1.sent.length);
    expectPrinted('0');
  });

  it('FakeChannel (channel-types.ts)', async () => {
    const bus = createMessageBus();
    const channel: FakeChannel = createFakeChannel({ channel: 'feishu' });
    await bus.attach(channel);
    await bus.publishOutbound({ channel: 'feishu', chatId: 'g1', text: 'hi' });
    log(channel.lastSent('g1')?.text);
    expectPrinted('hi');
  });

  it('createFakeChannel (channel.ts)', async () => {
    const bus = createMessageBus();
    const channel = createFakeChannel({ channel: 'feishu' });
    await bus.attach(channel);
    await channel.say('g1', 'alice', 'hello', { threadId: 't1' });
    const message = await bus.receiveInbound();
    log(message.sessionKey, message.senderId);
    expectPrinted('feishu:g1:t1 alice');
  });

  it('FakePlatformOrder (platform-order.ts)', async () => {
    const platform = createFakePlatformOrder();
    log(platform.next('tg:ops'), platform.next('tg:ops'), platform.next('tg:dev'));
    expectPrinted('1 2 1');
    const typed: FakePlatformOrder = platform;
  });

  it('createFakePlatformOrder (platform-order.ts)', async () => {
    const order = createFakePlatformOrder();
    const replicaA = createFakeChannel({ channel: 'tg', order });
    const replicaB = createFakeChannel({ channel: 'tg', order });
    log(replicaA.channel === replicaB.channel);
    expectPrinted('true');
  });

  it('PendingTimer (clock.ts)', async () => {
    const timer: PendingTimer = { dueAt: 31_000, scheduledAt: 1_000, delayMs: 30_000 };
  });

  it('FakeClock (clock.ts)', async () => {
    const clock: FakeClock = createFakeClock({ now: 1_000 });
    clock.setTimeout(() => {}, 500);
    log(clock.timers());
    expectPrinted('[ { dueAt: 1500, scheduledAt: 1000, delayMs: 500 } ]');
  });

  it('createFakeClock (clock.ts)', async () => {
    const clock = createFakeClock({ now: 0 });
    let fired = 0;
    clock.setTimeout(() => fired++, 30_000);
    log(clock.advanceToNextTimer(), fired);
    expectPrinted('30000 1');
    clock.assertNoPendingTimers(); // passes: nothing is left
  });

  it('assertNoPendingTimers (clock.ts)', async () => {
    const clock = createManualClock();
    const timer = clock.setTimeout(() => {}, 1_000);
    clock.clearTimeout(timer);
    assertNoPendingTimers(clock); // passes
  });

  it('TESTING_ERROR_CODES (errors.ts)', async () => {
    log(TESTING_ERROR_CODES.includes('unscripted_call'));
    expectPrinted('true');
  });

  it('TestingErrorCode (errors.ts)', async () => {
    const code: TestingErrorCode = 'assertion_failed';
  });

  it('TestingError (errors.ts)', async () => {
    const model = createScriptedModel<string>();
    const error = await model('hello').catch((err: unknown) => err);
    log(error instanceof TestingError, isParleyError(error, 'unscripted_call'));
    expectPrinted('true true');
  });

  it('ModelCallContext (model-types.ts)', async () => {
    const context: ModelCallContext = { signal: AbortSignal.timeout(1_000) };
  });

  it('ModelStep (model-types.ts)', async () => {
    const steps: ModelStep<string>[] = [
      { reply: 'HP -3' },
      { fail: new Error('502 Bad Gateway') },
      { respond: (request) => `echo ${String(request)}` },
      { reply: 'slow', delayMs: 5_000 },
      { hang: true },
    ];
  });

  it('RequestMatcher (model-types.ts)', async () => {
    const retries: RequestMatcher<{ feedback: unknown[] }> = (request) => request.feedback.length > 0;
  });

  it('ModelRule (model-types.ts)', async () => {
    const rule: ModelRule<string> = { match: /dragon/, reply: 'Roll for initiative.', times: 1 };
  });

  it('ModelCall (model-types.ts)', async () => {
    const failed = (calls: readonly ModelCall<string>[]) => calls.filter((c) => c.status === 'failed');
  });

  it('ScriptedModelOptions (model-types.ts)', async () => {
    const options: ScriptedModelOptions<string> = {
      replies: ['first', 'second'],
      rules: [{ match: 'help', reply: 'How can I help?' }],
      clock: createFakeClock(),
    };
  });

  it('ScriptedModel (model-types.ts)', async () => {
    const model: ScriptedModel<string> = createScriptedModel({ replies: ['hello'] });
    log(await model('hi'), model.requests);
    expectPrinted("hello [ 'hi' ]");
  });

  it('createScriptedModel (model.ts)', async () => {
    const model = createScriptedModel<Proposal, AttemptRequest<string>>({
      replies: [{ text: 'You have 99 HP.' }, { text: 'You have 12 HP.' }],
    });
    const hp = defineDetector<{ hp: number }>({
      name: 'hp',
      detect: (proposal, state) =>
        proposal.text.includes(`${state.hp} HP`)
          ? null
          : {
              expected_state_snippet: state,
              mismatch_reason: 'wrong HP',
              instructions: `Say ${state.hp} HP.`,
            },
    });
    const loop = createConflictLoop<{ hp: number }>({ detectors: [hp] });
    const outcome = await loop.run({ input: 'status?', generate: model, readState: () => ({ hp: 12 }) });
    log(outcome.ok, model.requests[1]?.feedback[0]?.conflict_debug[0]?.mismatch_reason);
    expectPrinted('true wrong HP');
  });

  it('PlatformRequest (platform-types.ts)', async () => {
    const request: PlatformRequest = {
      action: 'takedown',
      targets: ['https://x.com/a/1'],
      params: { reason: 'dmca' },
    };
  });

  it('PlatformError (platform-types.ts)', async () => {
    const error: PlatformError = {
      target: 'u2',
      code: 'rate_limited',
      message: 'Try again in 60 s',
      retryable: true,
    };
  });

  it('PlatformResult (platform-types.ts)', async () => {
    const partial: PlatformResult = {
      status: 'partial',
      completed: ['u1'],
      errors: [{ target: 'u2', code: 'not_found', message: 'Already gone', retryable: false }],
    };
  });

  it('PlatformErrorInit (platform-types.ts)', async () => {
    const init: PlatformErrorInit = { code: 'auth_expired', retryable: true };
  });

  it('PlatformStep (platform-types.ts)', async () => {
    const steps: PlatformStep[] = [
      'success',
      { outcome: 'partial', failTargets: ['u2'], error: { code: 'not_found' } },
      { outcome: 'failed', error: { code: 'auth_expired', retryable: true } },
      { throws: new Error('ECONNRESET') },
      { hang: true },
    ];
  });

  it('PlatformCall (platform-types.ts)', async () => {
    const targetsOf = (calls: readonly PlatformCall[]) => calls.flatMap((c) => c.request.targets);
  });

  it('FakePlatformOptions (platform-types.ts)', async () => {
    const options: FakePlatformOptions = { script: ['failed'], otherwise: 'success' };
  });

  it('ExecuteOptions (platform-types.ts)', async () => {
    const options: ExecuteOptions = { signal: new AbortController().signal };
  });

  it('FakePlatform (platform-types.ts)', async () => {
    const platform: FakePlatform = createFakePlatform({ otherwise: 'success' });
    const result = await platform.execute({ action: 'delete', targets: ['m1', 'm2'] });
    log(result.status, platform.timesCompleted('m1'));
    expectPrinted('success 1');
  });

  it('createFakePlatform (platform.ts)', async () => {
    const platform = createFakePlatform({
      script: [
        { outcome: 'partial', failTargets: ['post/2'], error: { code: 'rate_limited', retryable: true } },
      ],
      otherwise: 'success',
    });
    const first = await platform.execute({ action: 'takedown', targets: ['post/1', 'post/2'] });
    log(first.status, first.errors[0]?.code);
    expectPrinted('partial rate_limited');
    const retry = await platform.execute({
      action: 'takedown',
      targets: first.errors.map((e) => e.target ?? ''),
    });
    log(retry.status, platform.calls.length);
    expectPrinted('success 2');
  });

  it('STORE_METHODS (store.ts)', async () => {
    log(STORE_METHODS.includes('compareAndSet'));
    expectPrinted('true');
  });

  it('StoreMethod (store.ts)', async () => {
    const method: StoreMethod = 'set';
  });

  it('StoreCall (store.ts)', async () => {
    const writes = (calls: readonly StoreCall[]) =>
      calls.filter((c) => c.method === 'set' || c.method === 'compareAndSet');
  });

  it('FakeStoreOptions (store.ts)', async () => {
    const options: FakeStoreOptions = { clock: createFakeClock() };
  });

  it('FakeStore (store.ts)', async () => {
    const store: FakeStore = createFakeStore();
    await store.set('k', 1);
    log(store.calls.map((c) => c.method));
    expectPrinted("[ 'set' ]");
  });

  it('createFakeStore (store.ts)', async () => {
    const store = createFakeStore();
    store.fail('set', { times: 1 });
    const error = await store.set('k', 1).catch((err: unknown) => err);
    log(isParleyError(error, 'injected_fault'), await store.set('k', 2));
    expectPrinted('true 1');

    store.before('compareAndSet', (inner) => inner.set('k', 3)); // another writer wins the race
    log(await store.compareAndSet('k', 1, 4));
    expectPrinted('{ ok: false, version: 2 }');
  });

  it('StoreConformanceSubject (store-conformance.ts)', async () => {
    const store = createMemoryStore();
    const subject: StoreConformanceSubject = {
      store,
      watch: async (prefix, listener) => store.watch?.(prefix, listener) ?? (() => {}),
    };
  });

  it('StoreConformanceCase (store-conformance.ts)', async () => {
    const watchCases: StoreConformanceCase[] = storeConformanceCases().filter((c) => c.group === 'watch');
    expect(watchCases).toHaveLength(2);
  });

  it('storeConformanceCases (store-conformance.ts)', async () => {
    const passed: string[] = [];
    for (const check of storeConformanceCases()) {
      await check.run(async () => ({ store: createMemoryStore() })); // throws on a broken contract
      passed.push(check.name);
    }
    log(passed.length === storeConformanceCases().length);
    expectPrinted('true');
  });

  it('FakeToolDecision (tool-gate.ts)', async () => {
    const locked: FakeToolDecision = { status: 'rejected', reason: 'area_locked' };
  });

  it('FakeToolGate (tool-gate.ts)', async () => {
    const gate: FakeToolGate = createFakeToolGate();
    log(gate.batches.length, gate.runs.size);
    expectPrinted('0 0');
  });

  it('createFakeToolGate (tool-gate.ts)', async () => {
    const gate = createFakeToolGate((call) =>
      call.tool === 'delete_save' ? 'defer' : { status: 'rejected', reason: 'tool not enabled' },
    );
    const result = await gate([{ id: 'c1', tool: 'move', args: {} }], {
      state: {},
      attempt: 1,
      proposal: { text: '' },
      applied: [],
      signal: undefined,
    });
    log(result.feedback?.failed_calls[0]?.reason);
    expectPrinted('tool not enabled');
  });

  it('TRANSPORT_FAULTS (transport-types.ts)', async () => {
    log(TRANSPORT_FAULTS);
    expectPrinted("[ 'drop', 'duplicate', 'delay', 'reorder' ]");
  });

  it('TransportFault (transport-types.ts)', async () => {
    const fault: TransportFault = 'duplicate';
  });

  it('RecordingTransportOptions (transport-types.ts)', async () => {
    const options: RecordingTransportOptions<'lead' | 'alice'> = {
      endpoints: ['lead', 'alice'],
      clock: createFakeClock(),
      delivery: 'manual',
    };
  });

  it('FaultOptions (transport-types.ts)', async () => {
    const responses: FaultOptions<{ kind: string }, 'a' | 'b'> = {
      from: 'b',
      match: (m) => m.kind === 'response',
      times: 2,
    };
  });

  it('TransportDelivery (transport-types.ts)', async () => {
    const failed = (d: TransportDelivery): boolean => d.error !== undefined;
  });

  it('TransportRecord (transport-types.ts)', async () => {
    const lost = (records: readonly TransportRecord<unknown>[]) =>
      records.filter((r) => r.status === 'dropped');
  });

  it('TransportEndpoint (transport-types.ts)', async () => {
    const a: TransportEndpoint<string, 'a' | 'b'> = createRecordingTransport<string>().endpoint('a');
    a.send('hello'); // never throws
  });

  it('RecordingTransport (transport-types.ts)', async () => {
    const wire: RecordingTransport<string> = createRecordingTransport({ delivery: 'manual' });
    wire.endpoint('a').send('ping');
    log(wire.inFlight);
    expectPrinted('1');
  });

  it('RecordingHubOptions (hub.ts)', async () => {
    const options: RecordingHubOptions<{ to: string; text: string }, 'lead' | 'alice' | 'bob'> = {
      endpoints: ['lead', 'alice', 'bob'],
      route: (message) => message.to,
    };
  });

  it('HubEndpoint (hub.ts)', async () => {
    const hub = createRecordingHub<string, 'lead' | 'alice' | 'bob'>({ endpoints: ['lead', 'alice', 'bob'] });
    const lead: HubEndpoint<string, 'lead' | 'alice' | 'bob'> = hub.endpoint('lead');
    lead.sendTo('bob', 'hello bob');
  });

  it('RecordingHub (hub.ts)', async () => {
    const hub: RecordingHub<string, 'lead' | 'alice' | 'bob'> = createRecordingHub({
      endpoints: ['lead', 'alice', 'bob'],
    });
    log(hub.names);
    expectPrinted("[ 'lead', 'alice', 'bob' ]");
  });

  it('createRecordingHub (hub.ts)', async () => {
    type Name = 'lead' | 'alice' | 'bob';
    const hub = createRecordingHub<{ to: Name; text: string }, Name>({
      endpoints: ['lead', 'alice', 'bob'],
      route: (message) => message.to,
    });
    const heard: string[] = [];
    for (const name of ['alice', 'bob'] as const) {
      hub.endpoint(name).listen((message) => heard.push(`${name}: ${message.text}`));
    }
    hub.drop({ to: 'bob' }); // bob's copy is lost
    hub.endpoint('lead').send({ to: 'alice', text: 'shut down' });
    hub.endpoint('lead').send({ to: 'bob', text: 'shut down' });
    await hub.flush();
    log(heard);
    expectPrinted("[ 'alice: shut down' ]");
    log(hub.records.map((r) => `${r.to} ${r.status}`));
    expectPrinted("[ 'alice delivered', 'bob dropped' ]");
  });

  it('createRecordingTransport (transport.ts)', async () => {
    const clock = createFakeClock();
    const wire = createRecordingTransport<CorrelateMessage, 'lead' | 'alice'>({
      endpoints: ['lead', 'alice'],
      clock,
    });
    const common = { clock, protocols: [shutdownProtocol] };
    const lead = createCorrelator({ ...common, self: 'lead', send: wire.endpoint('lead').send });
    const alice = createCorrelator({ ...common, self: 'alice', send: wire.endpoint('alice').send });
    wire.endpoint('lead').listen((message) => lead.receive(message));
    wire.endpoint('alice').listen((message) => alice.receive(message));
    alice.on('request', ({ request }) => {
      alice.respond(request.id, { approve: true });
    });

    wire.duplicate({ from: 'alice' }); // the answer arrives twice
    const reply = lead.request(shutdownProtocol, { to: 'alice', payload: { reason: 'done' } });
    await wire.flush();
    log((await reply).approved);
    expectPrinted('true');
    log(wire.records[1]?.deliveries.map((d) => (d.result as { ok: boolean }).ok));
    expectPrinted('[ true, false ]');
  });
});
