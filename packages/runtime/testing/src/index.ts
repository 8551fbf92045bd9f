/**
 * Fakes that test authors reach for first: a manual clock that lists its timers, a chat platform
 * that plugs into the bus (group chats, threads, cards, platform faults), a scripted model client,
 * a cleanup platform with success / partial / failed outcomes, a recording transport for
 * envelopes and correlators, a store that fails on cue, the Store conformance cases any store
 * implementation can run, and assertions with clear messages that
 * work in vitest, jest or `node:test`.
 *
 * @packageDocumentation
 * @module @parley/testing
 */
export { createFakeClock, assertNoPendingTimers } from './clock.js';
export type { FakeClock, PendingTimer } from './clock.js';
export { createFakeChannel } from './channel.js';
export { createFakePlatformOrder } from './platform-order.js';
export type { FakePlatformOrder } from './platform-order.js';
export type {
  FakeChannel,
  FakeChannelOptions,
  FakeChat,
  FakeInbound,
  DeliveryRecord,
  SendRecord,
  OutboxFilter,
  ReleaseOrder,
  ButtonLabel,
} from './channel-types.js';
export { createScriptedModel } from './model.js';
export type {
  ScriptedModel,
  ScriptedModelOptions,
  ModelStep,
  ModelRule,
  ModelCall,
  ModelCallContext,
  RequestMatcher,
} from './model-types.js';
export { createFakeToolGate } from './tool-gate.js';
export type { FakeToolGate, FakeToolDecision } from './tool-gate.js';
export { createFakePlatform } from './platform.js';
export type {
  FakePlatform,
  FakePlatformOptions,
  PlatformRequest,
  PlatformResult,
  PlatformError,
  PlatformErrorInit,
  PlatformStep,
  PlatformCall,
  ExecuteOptions,
} from './platform-types.js';
export { createRecordingTransport } from './transport.js';
export { TRANSPORT_FAULTS } from './transport-types.js';
export { createRecordingHub } from './hub.js';
export type { RecordingHub, RecordingHubOptions, HubEndpoint } from './hub.js';
export type {
  RecordingTransport,
  RecordingTransportOptions,
  TransportEndpoint,
  TransportRecord,
  TransportDelivery,
  TransportFault,
  FaultOptions,
} from './transport-types.js';
export { createFakeStore, STORE_METHODS } from './store.js';
export type { FakeStore, FakeStoreOptions, StoreCall, StoreMethod } from './store.js';
export { storeConformanceCases } from './store-conformance.js';
export type { StoreConformanceCase, StoreConformanceSubject } from './store-conformance.js';
export { adapterConformanceCases } from './adapter-conformance.js';
export type {
  AdapterConformanceCase,
  AdapterConformanceSubject,
  AdapterProcess,
  ConformanceDecision,
  ConformanceDelivery,
  ConformanceGate,
  ConformanceGateOptions,
  ConformanceUser,
} from './adapter-conformance.js';
export { assertSent, assertNotSent, expectOutbox } from './assertions.js';
export type { MessageMatcher, OutboxExpectation } from './assertions.js';
export { drainInbound } from './bus.js';
export { createTranscript, clockTime, brief } from './transcript.js';
export { createProgress, DEFAULT_STALL_MS, MAX_PROGRESS_WAITERS } from './progress.js';
export type { Progress, ProgressOptions } from './progress.js';
export { createChatDriver } from './chat-driver.js';
export type { ChatDriver, ChatDriverOptions } from './chat-driver.js';
export { runChatRepl, MAX_REPL_COMMANDS } from './chat-repl.js';
export type { ChatReplOptions } from './chat-repl.js';
export type { Transcript, TranscriptOptions } from './transcript.js';
export { describeAttempts } from './attempts.js';
export type { DescribeAttemptsOptions } from './attempts.js';
export { TestingError, TESTING_ERROR_CODES } from './errors.js';
export type { TestingErrorCode } from './errors.js';
export { kernelConformanceCases } from './kernel-conformance.js';
export type { KernelConformanceCase, KernelConformanceSubject } from './kernel-conformance-types.js';
