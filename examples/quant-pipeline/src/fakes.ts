// Fakes of what the example does not own: the sessions runtime that hosts spawned runs (scripted
// agents answer from a Scenario) and the chairman answering in #approvals: small stand-ins shaped
// to this example's protocols, which @parley/testing's general fakes do not cover.
import { type CorrelateMessage, type Correlator, createCorrelator } from '@parley/correlate';
import { type TimerHandle, validate } from '@parley/core';
import { type ArtifactName, isArtifactName } from './artifacts.js';
import { planApprovalProtocol, sessionsSpawnProtocol } from './protocols.js';
import type { AgentBehaviour, Scenario } from './scenarios.js';
import { CHAIRMAN, type Host, SESSIONS, STRATEGIST } from './wiring.js';

/** The chairman's decision on one approval request. */
export interface ChairmanDecision {
  readonly approve: boolean;
  readonly reason?: string;
}

export interface FakeSessions {
  /** Takes a message addressed to `sessions` from the wire. */
  receive(message: CorrelateMessage): void;
  /** Cancels every announce still scheduled. */
  close(): void;
}

/**
 * The sessions runtime: accepts a spawn request, checks its envelope with the codec, runs the
 * step's scripted agent and, after the scripted time, sends the run's announce (or its failure)
 * back on the wire — whether or not anyone still waits for it.
 */
export function createFakeSessions(
  host: Host,
  scenario: Scenario,
  send: (message: CorrelateMessage) => void,
): FakeSessions {
  const timers = new Set<TimerHandle>();
  const spawnsByStep = new Map<string, number>();

  return {
    receive(message) {
      if (message.kind !== 'request' || message.protocol !== sessionsSpawnProtocol.name) return;
      const checked = validate(sessionsSpawnProtocol.request, message.payload);
      if (!checked.ok) return;
      const request = checked.value;
      const output = request.output;
      if (!isArtifactName(output)) return;
      const codec = host.codec(output);
      const inbound = codec.decode(request.envelope);
      if (!inbound.ok) {
        host.transcript.log(`  ⛔ sessions refused the spawn of ${request.run_id}: ${inbound.code}`);
        return;
      }
      const n = (spawnsByStep.get(request.step) ?? 0) + 1;
      spawnsByStep.set(request.step, n);
      const script = scenario.agents[request.step] ?? [];
      const behaviour = script[Math.min(n, script.length) - 1];
      if (behaviour === undefined) throw new Error(`No script for step "${request.step}"`);
      const respond = (response: unknown): void =>
        send({
          kind: 'response',
          request_id: message.request_id,
          protocol: message.protocol,
          from: SESSIONS,
          to: message.from,
          response,
        });
      const timer = host.clock.setTimeout(() => {
        timers.delete(timer);
        respond(answer(behaviour, request.run_id, output));
      }, behaviour.afterMs);
      timers.add(timer);
    },
    close() {
      for (const timer of timers) host.clock.clearTimeout(timer);
      timers.clear();
    },
  };

  function answer(behaviour: AgentBehaviour, runId: string, output: ArtifactName): unknown {
    if (behaviour.kind === 'model_error') return { status: 'failed', error: behaviour.message };
    host.putArtifact(runId, output, behaviour.report);
    const codec = host.codec(output);
    const envelope = codec.create(output === 'Review_Report.json' ? 'review_verdict' : 'deliver_report', {
      from: runId,
      to: STRATEGIST,
      ref_task: host.refTask,
      payload: { $ref: output },
      spawn_depth: 2,
    });
    return { status: 'announced', envelope: codec.encode(envelope) };
  }
}

export interface FakeChairman {
  /** The chairman's correlator (the approvals bot answering on their behalf). */
  readonly correlator: Correlator;
  close(): void;
}

/**
 * The chairman in #approvals: a responder correlator that answers each approval request with
 * `decide` — scripted (after a delay on the clock) or typed by a person (`--interactive`).
 */
export function createFakeChairman(
  host: Host,
  send: (message: CorrelateMessage) => void,
  decide: (
    plan: string,
  ) => Promise<ChairmanDecision> | { readonly afterMs: number; readonly decision: ChairmanDecision },
): FakeChairman {
  const timers = new Set<TimerHandle>();
  const correlator = createCorrelator({
    self: CHAIRMAN,
    protocols: [planApprovalProtocol],
    send,
    clock: host.clock,
  });
  const answer = (requestId: string, decision: ChairmanDecision): void => {
    if (correlator.get(requestId)?.state !== 'pending') return; // expired or cancelled meanwhile
    host.transcript.log(
      `${CHAIRMAN} in #approvals: ${decision.approve ? 'approve' : 'reject'}${decision.reason ? ` — "${decision.reason}"` : ''}`,
    );
    correlator.respond(requestId, decision.reason === undefined ? { approve: decision.approve } : decision);
  };
  correlator.on('request', ({ request }) => {
    const plan = (request.payload as { plan: string }).plan; // checked against plan_approval on receipt
    const result = decide(plan);
    if ('then' in result) {
      void result.then((decision) => answer(request.id, decision));
      return;
    }
    const timer = host.clock.setTimeout(() => {
      timers.delete(timer);
      answer(request.id, result.decision);
    }, result.afterMs);
    timers.add(timer);
  });
  return {
    correlator,
    close() {
      for (const timer of timers) host.clock.clearTimeout(timer);
      timers.clear();
      correlator.close();
    },
  };
}
