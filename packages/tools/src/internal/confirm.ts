import { canonicalJson, type JsonValue } from '@parley/core';
import type { AnyToolDefinition } from '../define.js';
import type { ToolRunOptions } from '../gate-types.js';
import type { ToolRefusalCode } from '../types.js';
import type { Runtime } from './runtime.js';

/**
 * Asks for confirmation when the tool needs it; `code` is set when the call must not run. The
 * confirmation is about the arguments the executor will get (the args schema's output, which must
 * be JSON): `bound` is their canonical text, and the executor runs with a copy of exactly that.
 */
export function askConfirmation<TContext>(
  rt: Runtime<TContext>,
  tool: AnyToolDefinition,
  value: unknown,
  call: { readonly id: string; readonly tool: string; readonly reason?: string | undefined },
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
  return ask(rt, tool, call, run, bound, summary);
}

/** What {@link askConfirmation} answers. */
export interface Confirmation {
  readonly code?: ToolRefusalCode;
  readonly text: string;
  readonly id?: string | undefined;
  readonly bound?: string;
}

/** The answer for a tool that needs no confirmation: shared, as it says nothing about the call. */
const NOT_NEEDED: Confirmation = Object.freeze({ text: '' });

function failedFor(tool: AnyToolDefinition): Confirmation {
  return {
    code: 'confirmation_failed',
    text: `The confirmation for "${tool.name}" could not be asked, so it was not run`,
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
  try {
    if (typeof confirm === 'function') {
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
      if (answer === true || answer === 'confirmed') return { text: '', bound };
      if (answer === 'failed') return notShownFor(tool);
      return answer === 'timed_out' ? timedOut : declined;
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
    return auth.ok ? { text: '', id: decision.id, bound } : { ...declined, id: decision.id };
  } catch (error) {
    rt.emit('error', { turn: run.turn, id: call.id, tool: tool.name, stage: 'confirm', error });
    return failedFor(tool);
  }
}
