// A teammate: a correlator endpoint of its own with scripted behaviour. It answers shutdown requests
// (approve and exit, refuse while busy, or never answer) and submits plans for approval, revising a
// rejected plan with the lead's feedback. Everything it knows about a request comes from its own
// correlator; it reaches the lead only through its wire.
import { type Clock, type IdGenerator, isParleyError, type TimerHandle } from '@parley/core';
import {
  type CorrelateMessage,
  type Correlator,
  createCorrelator,
  planApprovalProtocol,
  shutdownProtocol,
  type TrackedRequest,
} from '@parley/correlate';
import type { TeammateScript } from './cast.js';
import { clockTime, type Transcript } from '@parley/testing';
import { LEAD, type Wire, wireSender } from './wire.js';

/** Every party of the team speaks both protocols. */
export const PROTOCOLS = [shutdownProtocol, planApprovalProtocol];

export interface Teammate {
  readonly name: string;
  readonly script: TeammateScript;
  readonly correlator: Correlator;
  /** True once it approved a shutdown and exited. */
  readonly exited: boolean;
  /** Starts its task: writes its first plan and submits it for approval (when it has plans). */
  startWork(): void;
  /** Writes a raw message to its wire, bypassing its correlator: what a misbehaving peer does. */
  sendRaw(message: CorrelateMessage): void;
  /** Stops answering and clears its timers (the correlator too). */
  close(): void;
}

export interface TeammateOptions {
  readonly script: TeammateScript;
  readonly wire: Wire;
  readonly clock: Clock;
  readonly generateId: IdGenerator;
  readonly transcript: Transcript;
}

export function createTeammate(options: TeammateOptions): Teammate {
  const { script, wire, clock, transcript } = options;
  const name = script.name;
  const startedAt = clock.now();
  const send = wireSender(wire, name, transcript, script.linkDelayMs);
  const correlator = createCorrelator({
    self: name,
    protocols: PROTOCOLS,
    send,
    clock,
    generateId: options.generateId,
  });
  wire.endpoint(name).listen((message) => correlator.receive(message));
  const timers = new Set<TimerHandle>();
  const plans = script.plans ?? [];
  let submitted = 0;
  let rejected: string | undefined;
  let exited = false;
  let closed = false;
  const log = (text: string): void => transcript.entry(name, text);

  /** Runs `action` after the teammate's thinking time, on the clock. */
  function later(action: () => void): void {
    const timer = clock.setTimeout(() => {
      timers.delete(timer);
      action();
    }, script.thinkMs);
    timers.add(timer);
  }

  function respond(request: TrackedRequest, response: { approve: boolean; reason: string }): boolean {
    try {
      correlator.respond(request.id, response);
      return true;
    } catch (error) {
      // The request expired on this side too, or the teammate already exited: nothing is sent.
      log(`cannot answer ${request.id}: ${isParleyError(error) ? error.code : String(error)}`);
      return false;
    }
  }

  function answerShutdown(request: TrackedRequest): void {
    const behaviour = script.shutdown;
    if (behaviour.kind === 'silent') return;
    if (behaviour.kind === 'busy' && clock.now() < startedAt + behaviour.busyForMs) {
      respond(request, { approve: false, reason: behaviour.busyReason });
      return;
    }
    const reason = behaviour.kind === 'busy' ? behaviour.doneReason : behaviour.reason;
    if (respond(request, { approve: true, reason })) {
      log('finishes up and exits');
      exited = true;
      teammate.close();
    }
  }

  function submitPlan(): void {
    const plan = plans[submitted];
    if (plan === undefined || closed) return;
    const previous = rejected;
    submitted++;
    log(
      previous === undefined ? 'asks the lead to approve a plan' : `revises the plan rejected in ${previous}`,
    );
    correlator
      .request(planApprovalProtocol, {
        to: LEAD,
        payload: previous === undefined ? { plan } : { plan, reason: `revision of ${previous}` },
        waitingOnHuman: true,
      })
      .catch((error: unknown) => {
        if (!isParleyError(error, 'closed'))
          log(`plan request failed: ${isParleyError(error) ? error.code : error}`);
      });
  }

  correlator.on('request', ({ request }) => {
    if (request.protocol !== shutdownProtocol.name) return;
    if (script.shutdown.kind === 'silent') {
      log(`gets ${request.id} but never answers (stuck in: ${script.task})`);
      return;
    }
    later(() => answerShutdown(request));
  });

  // A handler runs whenever this teammate's own plan request settles: its reaction to the review.
  correlator.handle(planApprovalProtocol, (request) => {
    switch (request.state) {
      case 'approved':
        log(`plan ${request.id} approved; starts work on it`);
        return;
      case 'rejected':
        rejected = request.id;
        if (submitted < plans.length) later(submitPlan);
        else log(`plan ${request.id} rejected and no other plan; waits for the lead`);
        return;
      default:
        log(
          `plan ${request.id} ${request.state} (deadline ${clockTime(request.deadlineAt)}); does not start`,
        );
    }
  });

  correlator.on('refused', (refusal) => {
    const what = [refusal.kind ?? 'a message', refusal.requestId, refusal.from && `from ${refusal.from}`];
    log(`✗ refused ${what.filter(Boolean).join(' ')}: ${refusal.code}`);
  });

  const teammate: Teammate = {
    name,
    script,
    correlator,
    get exited() {
      return exited;
    },
    startWork() {
      if (plans.length > 0 && submitted === 0 && !closed) later(submitPlan);
    },
    sendRaw: send,
    close() {
      if (closed) return;
      closed = true;
      for (const timer of timers) clock.clearTimeout(timer);
      timers.clear();
      correlator.close();
    },
  };
  return teammate;
}
