import { consentFactsOf, digestAction } from '@parley/confirm';
import { canonicalJson, type JsonValue } from '@parley/core';
import type { AnyToolDefinition } from '../define.js';
import type { ToolRunOptions } from '../gate-types.js';
import type { ToolRefusalCode } from '../types.js';
import { type ConsentTarget, consentTarget, recordConsent } from './consent.js';
import type { CheckedCall, Runtime } from './runtime.js';

/**
 * Asks for confirmation when the tool needs it; `code` is set when the call must not run. The
 * confirmation is about the arguments the executor will get (the args schema's output, which must
 * be JSON): `bound` is their canonical text, and the executor runs with a copy of exactly that.
 */
export function askConfirmation<TContext>(
  rt: Runtime<TContext>,
  tool: AnyToolDefinition,
  value: unknown,
  call: CheckedCall,
  run: ToolRunOptions<TContext>,
): Confirmation | Promise<Confirmation> {
  let summary: string;
  let bound: string;
  try {
    if (!tool.needsConfirmation(value as never, run.context as never)) return NOT_NEEDED;
    bound = canonicalJson(value); // throws for arguments that are not JSON: nothing to bind to
    summary = tool.summarize(JSON.parse(bound));
  } catch (error) {
    rt.emit('error', { turn: run.turn, id: call.id, tool: tool.name, stage: 'confirm', error });
    return failedFor(tool);
  }
  return ask(rt, tool, { id: call.id, reason: call.reason, tool: tool.name }, run, bound, summary);
}

/** What {@link askConfirmation} answers. */
export interface Confirmation {
  readonly code?: ToolRefusalCode;
  readonly text: string;
  readonly id?: string | undefined;
  readonly bound?: string;
  /** With the gate's `ledger`: where the call's effect is recorded once its executor ran. */
  readonly consent?: ConsentTarget | undefined;
}

/** The answer for a tool that needs no confirmation: shared, as it says nothing about the call. */
const NOT_NEEDED: Confirmation = Object.freeze({ text: '' });

function failedFor(tool: AnyToolDefinition): Confirmation {
  return {
    code: 'confirmation_failed',
    text: `The confirmation for "${tool.name}" could not be asked, so it was not run`,
  };
}

/** The answer when the consent could not be recorded in the gate's ledger: nothing may run. */
function notRecordedFor(tool: AnyToolDefinition, id?: string): Confirmation {
  return {
    code: 'confirmation_failed',
    text: `The confirmation for "${tool.name}" could not be recorded, so it was not run`,
    ...(id === undefined ? {} : { id }),
  };
}

/** The answer when the prompt never reached the person: asking failed, nobody declined. */
function notShownFor(tool: AnyToolDefinition): Confirmation {
  return {
    code: 'confirmation_failed',
    text: `The confirmation for "${tool.name}" could not be shown to the person (the prompt could not be sent), so it was not run`,
  };
}

async function ask<TContext>(
  rt: Runtime<TContext>,
  tool: AnyToolDefinition,
  call: { readonly id: string; readonly tool: string; readonly reason?: string | undefined },
  run: ToolRunOptions<TContext>,
  bound: string,
  summary: string,
): Promise<Confirmation> {
  const declined = {
    code: 'confirmation_declined' as const,
    text: `The user did not confirm "${tool.name}", so it was not run`,
  };
  const timedOut = {
    code: 'confirmation_timed_out' as const,
    text: `Nobody confirmed "${tool.name}" in time, so it was not run`,
  };
  const confirm = rt.confirm;
  // The arguments as parsed from the bound text: whoever is asked gets a copy, not what will run.
  const args = JSON.parse(bound) as Readonly<Record<string, unknown>>;
  const about = { turn: run.turn, id: call.id, tool: tool.name };
  try {
    if (typeof confirm === 'function') {
      const id = `tool:${run.turn}:${call.id}`;
      const target = consentTarget(rt, run.sessionKey, id);
      if (target === null) return notRecordedFor(tool);
      const actionDigest =
        target === undefined ? '' : await digestAction({ name: tool.name, args: args as JsonValue });
      const request = {
        kind: 'request',
        ref: id,
        actionName: tool.name,
        actionDigest,
        summary,
        requester: run.requester ?? '',
        approvers: 'requester',
      } as const;
      if (target !== undefined && !(await recordConsent(rt, target, [request], about)))
        return notRecordedFor(tool);
      const answer = await confirm({
        call,
        args,
        summary,
        context: run.context,
        turn: run.turn,
        sessionKey: run.sessionKey,
        requester: run.requester,
        signal: run.signal,
      });
      const outcome =
        answer === true || answer === 'confirmed'
          ? 'confirmed'
          : answer === 'failed'
            ? 'aborted'
            : answer === 'timed_out'
              ? 'timed_out'
              : 'cancelled';
      if (target !== undefined) {
        const decided = [
          { kind: 'decision', confirmationId: id, actionDigest, outcome, reason: 'confirm_function' },
        ] as const;
        const facts =
          outcome === 'confirmed'
            ? [...decided, { kind: 'authorization', confirmationId: id, actionDigest } as const]
            : decided;
        if (!(await recordConsent(rt, target, facts, about)) && outcome === 'confirmed')
          return notRecordedFor(tool, id);
      }
      if (outcome === 'confirmed')
        return { text: '', bound, ...(target === undefined ? {} : { id, consent: target }) };
      if (outcome === 'aborted') return notShownFor(tool);
      return outcome === 'timed_out' ? timedOut : declined;
    }
    if (confirm === undefined || run.sessionKey === undefined || run.requester === undefined) {
      return {
        code: 'confirmation_unavailable',
        text: `The tool "${tool.name}" needs a person's confirmation, which cannot be asked here`,
      };
    }
    const action = { name: tool.name, args: JSON.parse(bound) as JsonValue }; // parsed from canonical JSON
    const decision = await confirm.request({
      sessionKey: run.sessionKey,
      requester: run.requester,
      action,
      summary,
      ...(run.signal === undefined ? {} : { signal: run.signal }),
      ...(run.confirmTimeoutMs === undefined ? {} : { timeoutMs: run.confirmTimeoutMs }),
    });
    if (decision.outcome === 'timed_out') return { ...timedOut, id: decision.id };
    if (decision.outcome === 'aborted' && decision.reason === 'prompt_failed')
      return { ...notShownFor(tool), id: decision.id };
    if (decision.outcome !== 'confirmed') return { ...declined, id: decision.id };
    const auth = await confirm.authorize(decision, action);
    if (!auth.ok)
      return auth.code === 'not_recorded'
        ? notRecordedFor(tool, decision.id)
        : { ...declined, id: decision.id };
    const target = consentTarget(rt, run.sessionKey, decision.id);
    if (target === undefined) return { text: '', id: decision.id, bound };
    // the same facts the confirm gate appends to its own ledger: duplicates when it is this one
    const authorization = {
      kind: 'authorization',
      confirmationId: decision.id,
      actionDigest: decision.action.digest,
    } as const;
    if (
      target === null ||
      !(await recordConsent(rt, target, [...consentFactsOf(auth.decision), authorization], about))
    )
      return notRecordedFor(tool, decision.id);
    return { text: '', id: decision.id, bound, consent: target };
  } catch (error) {
    rt.emit('error', { turn: run.turn, id: call.id, tool: tool.name, stage: 'confirm', error });
    return failedFor(tool);
  }
}
