// A teammate: its own correlator, driven by a model through a protocol agent (@parley/protocol-tools):
// what it hears reaches the model as a notice, the model acts only through its side of each handshake
// (shutdown_response, plan_submit) in its own tool gate, and a refused call comes back as tool_feedback.
// The model is a createScriptedModel following the cast; a real one plugs in the same way.
import type { Clock, IdGenerator } from '@parley/core';
import {
  type CorrelateMessage,
  type Correlator,
  createCorrelator,
  planApprovalProtocol,
  shutdownProtocol,
} from '@parley/correlate';
import {
  createProtocolAgent,
  defineProtocolTools,
  type ProtocolAgentPrompt,
  type ProtocolAgentTurn,
} from '@parley/protocol-tools';
import { clockTime, createScriptedModel, type ScriptedModel, type Transcript } from '@parley/testing';
import { createToolGate } from '@parley/tools';
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

/** What the model is asked: start its task, or react to a protocol notice. */
export type TeammatePrompt = ProtocolAgentPrompt<{ readonly type: 'start'; readonly task: string }>;
export type TeammateModel = ScriptedModel<ProtocolAgentTurn, TeammatePrompt>;

export interface Teammate {
  readonly name: string;
  readonly correlator: Correlator;
  readonly model: TeammateModel;
  readonly exited: boolean; // it approved a shutdown and exited
  startWork(): void; // the model writes its first plan and submits it (when it has plans)
  sendRaw(message: CorrelateMessage): void; // bypasses its correlator: what a misbehaving peer does
  idle(): Promise<void>; // no model turn of it is running
  close(): void;
}

export interface TeammateOptions {
  readonly script: TeammateScript;
  readonly hub: Hub;
  readonly clock: Clock;
  readonly generateId: IdGenerator;
  readonly transcript: Transcript;
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
  const model = scriptedTeammate(script, clock);
  const agent = createProtocolAgent({
    correlator,
    gate: createToolGate({
      tools: [shutdownTools.respond, planTools.request],
      allowlist: ['shutdown_response', 'plan_submit'],
      clock,
    }),
    tools: [shutdownTools, planTools],
    model,
    peers: [LEAD],
    clock,
    delayMs: script.thinkMs, // its thinking time, on the clock
  });
  const log = (text: string): void => transcript.entry(name, text);
  let exited = false;

  agent.on('turn', ({ prompt, calls, result }) => {
    if (calls.length === 0 && 'state' in prompt && prompt.state === 'rejected') {
      log(`plan ${prompt.request_id} rejected and no other plan; waits for the lead`);
    }
    for (const call of result.executed) {
      if (call.tool === 'plan_submit') log(describePlan(call.args));
      if (call.tool === 'shutdown_response' && call.args['approve'] === true) {
        log('finishes up and exits');
        exited = true;
        teammate.close();
      }
    }
    for (const failed of result.feedback.failed_calls) {
      const args = calls.find((c) => c.id === failed.id)?.args;
      const verb = failed.tool === 'plan_submit' ? 'submit to' : 'answer';
      log(`cannot ${verb} ${requestIdOf(args)}: ${failed.tool_reason ?? failed.code}`);
    }
  });
  correlator.on('request', ({ request }) => {
    if (request.protocol === shutdownProtocol.name && script.shutdown.kind === 'silent')
      log(`gets ${request.id} but never answers (stuck in: ${script.task})`);
  });
  correlator.handle(planApprovalProtocol, (request) => {
    if (request.state === 'approved') log(`plan ${request.id} approved; starts work on it`);
    else if (request.state !== 'rejected')
      log(`plan ${request.id} ${request.state} (deadline ${clockTime(request.deadlineAt)}); does not start`);
  });
  correlator.on('refused', (refusal) => {
    const what = [refusal.kind ?? 'a message', refusal.requestId, refusal.from && `from ${refusal.from}`];
    log(`✗ refused ${what.filter(Boolean).join(' ')}: ${refusal.code}`);
  });

  const teammate: Teammate = {
    name,
    correlator,
    model,
    get exited() {
      return exited;
    },
    startWork() {
      if ((script.plans ?? []).length > 0 && agent.turns === 0)
        agent.prompt({ type: 'start', task: script.task });
    },
    sendRaw: send,
    idle: () => agent.idle(),
    close() {
      agent.close();
      correlator.close();
    },
  };
  return teammate;
}

function describePlan(args: Readonly<Record<string, unknown>>): string {
  const revision = (args['payload'] as { readonly reason?: string }).reason?.replace('revision of ', '');
  return revision === undefined
    ? 'asks the lead to approve a plan'
    : `revises the plan rejected in ${revision}`;
}

function requestIdOf(args: unknown): string {
  const { request_id, to } = (args ?? {}) as { readonly request_id?: unknown; readonly to?: unknown };
  return String(request_id ?? to);
}

/**
 * The scripted model of a cast member (the host gives it `thinkMs` on the clock first): it answers a
 * shutdown request as its behaviour says, submits its plans in order and revises a rejected one.
 */
export function scriptedTeammate(script: TeammateScript, clock: Clock): TeammateModel {
  const startedAt = clock.now();
  const plans = script.plans ?? [];
  let submitted = 0;
  const call = (tool: string, args: Record<string, unknown>): ProtocolAgentTurn => ({
    tool_calls: [{ id: `${script.name}_${tool}_${clock.now()}`, tool, args }],
  });
  const none: ProtocolAgentTurn = { tool_calls: [] };
  return createScriptedModel<ProtocolAgentTurn, TeammatePrompt>({
    clock,
    name: `${script.name}'s model`,
    respond,
  });

  function respond(prompt: TeammatePrompt): ProtocolAgentTurn {
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
