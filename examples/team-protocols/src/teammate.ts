// A teammate: a correlator endpoint of its own, driven by a model that can only act through the
// protocol tools of @parley/protocol-tools (shutdown_response, plan_submit). What it hears (a
// request waiting for its answer, the outcome of its plan) reaches the model as a notice; what the
// model calls goes through a @parley/tools gate holding only the teammate's side of each handshake;
// anything the correlator refuses comes back as tool_feedback. The model here is a
// createScriptedModel (@parley/testing) whose answers follow the cast; a real model plugs in the same way.
import type { Clock, IdGenerator, TimerHandle } from '@parley/core';
import {
  type CorrelateMessage,
  type Correlator,
  createCorrelator,
  planApprovalProtocol,
  shutdownProtocol,
} from '@parley/correlate';
import { defineProtocolTools, type ProtocolNotice } from '@parley/protocol-tools';
import { clockTime, createScriptedModel, type ScriptedModel, type Transcript } from '@parley/testing';
import { createToolGate, type ToolCallProposal, type ToolFeedback } from '@parley/tools';
import type { TeammateScript } from './cast.js';
import { type Hub, hubSender, LEAD } from './wire.js';

/** Every party of the team speaks both protocols. */
export const PROTOCOLS = [shutdownProtocol, planApprovalProtocol];
export const shutdownTools = defineProtocolTools(shutdownProtocol, {
  requestName: 'shutdown_request',
  respondName: 'shutdown_response',
});
export const planTools = defineProtocolTools(planApprovalProtocol, {
  requestName: 'plan_submit',
  respondName: 'plan_review',
  waitingOnHuman: true,
});

/** What the teammate's model is asked: start its task, or react to a protocol notice. */
export type TeammatePrompt =
  | { readonly type: 'start'; readonly task: string }
  | (ProtocolNotice & { readonly tool_feedback?: ToolFeedback });
/** What it answers: the tool calls it makes (none to stay silent). */
export interface TeammateTurn {
  readonly tool_calls: readonly ToolCallProposal[];
}
export type TeammateModel = ScriptedModel<TeammateTurn, TeammatePrompt>;

export interface Teammate {
  readonly name: string;
  readonly script: TeammateScript;
  readonly correlator: Correlator;
  readonly model: TeammateModel;
  /** True once it approved a shutdown and exited. */
  readonly exited: boolean;
  /** Starts its task: the model writes its first plan and submits it (when it has plans). */
  startWork(): void;
  /** Writes a raw message to the hub, bypassing its correlator: what a misbehaving peer does. */
  sendRaw(message: CorrelateMessage): void;
  /** Resolves once no model turn of it is running (one still thinking on the clock is not waited for). */
  idle(): Promise<void>;
  /** Stops answering and clears its timers (the correlator too). */
  close(): void;
}

export interface TeammateOptions {
  readonly script: TeammateScript;
  readonly hub: Hub;
  readonly clock: Clock;
  readonly generateId: IdGenerator;
  readonly transcript: Transcript;
  /** The model driving it; a scripted one following `script` by default. */
  readonly model?: TeammateModel;
}

export function createTeammate(options: TeammateOptions): Teammate {
  const { script, hub, clock, transcript } = options;
  const name = script.name;
  const send = hubSender(hub, name, transcript, script.linkDelayMs);
  const correlator = createCorrelator({
    self: name,
    protocols: PROTOCOLS,
    send,
    clock,
    generateId: options.generateId,
  });
  hub.endpoint(name).listen((message) => correlator.receive(message));
  const gate = createToolGate({
    tools: [shutdownTools.respond, planTools.request],
    allowlist: ['shutdown_response', 'plan_submit'],
    clock,
  });
  const model = options.model ?? scriptedTeammate(script, clock);
  const log = (text: string): void => transcript.entry(name, text);
  const stop = new AbortController(); // closing abandons a model call still thinking
  let turns = 0;
  let exited = false;
  let closed = false;

  /** One model turn: ask, run its calls through the gate, feed a refusal back once. */
  async function think(prompt: TeammatePrompt, retry = true): Promise<void> {
    if (closed) return;
    let tool_calls: readonly ToolCallProposal[];
    try {
      ({ tool_calls } = await model(prompt, { signal: stop.signal }));
    } catch {
      return; // closed while it was thinking
    }
    if (closed) return;
    if (tool_calls.length === 0 && prompt.type === 'protocol_outcome' && prompt.state === 'rejected') {
      log(`plan ${prompt.request_id} rejected and no other plan; waits for the lead`);
    }
    if (tool_calls.length === 0) return;
    const result = await gate.process(tool_calls, { turn: ++turns, context: { correlator, peers: [LEAD] } });
    for (const call of result.executed) {
      if (call.tool === 'plan_submit') log(describePlan(call.args));
      if (call.tool === 'shutdown_response' && call.args['approve'] === true) {
        log('finishes up and exits');
        exited = true;
        teammate.close();
      }
    }
    const { failed_calls } = result.feedback;
    for (const failed of failed_calls) {
      const args = tool_calls.find((c) => c.id === failed.id)?.args;
      const verb = failed.tool === 'plan_submit' ? 'submit to' : 'answer';
      log(`cannot ${verb} ${requestIdOf(args)}: ${failed.tool_reason ?? failed.code}`);
    }
    if (failed_calls.length > 0 && retry && prompt.type !== 'start') {
      await think({ ...prompt, tool_feedback: result.feedback }, false);
    }
  }
  const running = new Set<Promise<void>>();
  const timers = new Set<TimerHandle>();
  /** Asks the model after the teammate's thinking time on the clock. */
  const later = (prompt: TeammatePrompt): void => {
    const timer = clock.setTimeout(() => {
      timers.delete(timer);
      const turn = think(prompt).finally(() => running.delete(turn));
      running.add(turn);
    }, script.thinkMs);
    timers.add(timer);
  };

  correlator.on('request', ({ request }) => {
    if (request.protocol !== shutdownProtocol.name) return;
    if (script.shutdown.kind === 'silent')
      log(`gets ${request.id} but never answers (stuck in: ${script.task})`);
    later(shutdownTools.notice(request));
  });

  // Whenever this teammate's own plan request settles, the model hears the outcome.
  correlator.handle(planApprovalProtocol, (request) => {
    if (request.state === 'approved') log(`plan ${request.id} approved; starts work on it`);
    else if (request.state !== 'rejected') {
      log(`plan ${request.id} ${request.state} (deadline ${clockTime(request.deadlineAt)}); does not start`);
      return;
    }
    later(planTools.notice(request));
  });

  correlator.on('refused', (refusal) => {
    const what = [refusal.kind ?? 'a message', refusal.requestId, refusal.from && `from ${refusal.from}`];
    log(`✗ refused ${what.filter(Boolean).join(' ')}: ${refusal.code}`);
  });

  const teammate: Teammate = {
    name,
    script,
    correlator,
    model,
    get exited() {
      return exited;
    },
    startWork() {
      if ((script.plans ?? []).length > 0 && turns === 0) later({ type: 'start', task: script.task });
    },
    sendRaw: send,
    async idle() {
      await Promise.all(running);
    },
    close() {
      if (closed) return;
      closed = true;
      stop.abort();
      for (const timer of timers) clock.clearTimeout(timer);
      correlator.close();
    },
  };
  return teammate;
}

function describePlan(args: Readonly<Record<string, unknown>>): string {
  const payload = args['payload'] as { readonly reason?: string } | undefined;
  const revision = payload?.reason?.replace('revision of ', '');
  return revision === undefined
    ? 'asks the lead to approve a plan'
    : `revises the plan rejected in ${revision}`;
}

function requestIdOf(args: unknown): string {
  const { request_id, to } = (args ?? {}) as { readonly request_id?: unknown; readonly to?: unknown };
  return typeof request_id === 'string' ? request_id : String(to);
}

/**
 * The scripted model of a cast member (the host gives it `thinkMs` on the clock first): it answers a
 * shutdown request as its behaviour says, submits its plans in order and revises a rejected one.
 */
export function scriptedTeammate(script: TeammateScript, clock: Clock): TeammateModel {
  const startedAt = clock.now();
  const plans = script.plans ?? [];
  let submitted = 0;
  const call = (tool: string, args: Record<string, unknown>): TeammateTurn => ({
    tool_calls: [{ id: `${script.name}_${tool}_${clock.now()}`, tool, args }],
  });
  const none: TeammateTurn = { tool_calls: [] };
  return createScriptedModel<TeammateTurn, TeammatePrompt>({
    clock,
    name: `${script.name}'s model`,
    respond,
  });

  function respond(prompt: TeammatePrompt): TeammateTurn {
    const behaviour = script.shutdown;
    if (prompt.type === 'protocol_request') {
      if (behaviour.kind === 'silent') return none;
      const busy = behaviour.kind === 'busy' && clock.now() < startedAt + behaviour.busyForMs;
      const reason =
        behaviour.kind === 'approve' ? behaviour.reason : busy ? behaviour.busyReason : behaviour.doneReason;
      return call('shutdown_response', { request_id: prompt.request_id, approve: !busy, reason });
    }
    if (prompt.type === 'protocol_outcome' && prompt.state !== 'rejected') return none;
    const plan = plans[submitted];
    if (plan === undefined) return none;
    submitted++;
    const payload = prompt.type === 'start' ? { plan } : { plan, reason: `revision of ${prompt.request_id}` };
    return call('plan_submit', { to: LEAD, payload });
  }
}
