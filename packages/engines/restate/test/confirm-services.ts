// The confirmation services the tests bind: the confirmations object (its sends kept in `outbox`),
// and a deploy tool that asks, waits for the decision, is authorized, then acts once (ctx.run).
import { appendFileSync } from 'node:fs';
import type { AuthorizeResult, ConfirmDecision } from '@parley/confirm';
import * as restate from '@restatedev/restate-sdk';
import {
  awaitConfirmation,
  type ConfirmationsHandlers,
  type ConfirmOutbound,
  defineConfirmations,
} from '../src/index.js';

/** What the confirmations object sent, in this process. */
export const outbox: ConfirmOutbound[] = [];

/** Keeps what was sent; a session whose key starts with `down:` refuses every send. */
const send = async (out: ConfirmOutbound): Promise<boolean> => {
  outbox.push(out);
  return !out.sessionKey.startsWith('down:');
};

export const confirmations = defineConfirmations({ name: 'confirmations', send });

/** A second object whose newer request supersedes the prompted one, with summary pages and no after-decision window. */
export const superseding = defineConfirmations({
  name: 'superseding',
  send,
  rules: { whenPending: 'supersede', afterDecisionMs: 0, summaryPaging: true },
  timeoutMs: 120_000,
  approvers: 'any',
});

/** A third object that refuses a request while its session has a prompted one; late answers absorbed for 1 ms. */
export const rejecting = defineConfirmations({
  name: 'rejecting',
  send,
  rules: { whenPending: 'reject', afterDecisionMs: 1 },
});

export interface DeployInput {
  readonly sessionKey: string;
  readonly id: string;
  readonly requester: string;
  readonly env: string;
  readonly timeoutMs?: number;
}

export interface ToolOptions {
  /** Where the effect writes one line per run of it. */
  readonly effectLog?: string;
  /** Called inside the effect's ctx.run before it writes: a crash here is a crash between decision and effect. */
  readonly beforeEffect?: () => void;
}

const actionOf = (env: string) => ({ name: 'deploy', args: { env } });

/** `deploy` asks for a confirmation, waits, is authorized and deploys once; `use` authorizes again. */
export function toolService(options: ToolOptions = {}) {
  return restate.service({
    name: 'tool',
    handlers: {
      deploy: async (ctx: restate.Context, input: DeployInput): Promise<string> => {
        const object = ctx.objectClient<ConfirmationsHandlers>(
          { name: confirmations.name },
          input.sessionKey,
        );
        const action = actionOf(input.env);
        const request = {
          sessionKey: input.sessionKey,
          action,
          summary: `Deploy to ${input.env}`,
          requester: input.requester,
          ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }),
        };
        const asked = await object.request({ id: input.id, request });
        if (!asked.ok) return asked.code;
        const decision: ConfirmDecision = await awaitConfirmation(
          ctx,
          confirmations,
          input.sessionKey,
          input.id,
        );
        if (decision.outcome !== 'confirmed') return decision.outcome;
        const authorized = await object.authorize({ id: input.id, action });
        if (!authorized.ok) return authorized.code;
        await ctx.run('deploy', () => {
          options.beforeEffect?.();
          if (options.effectLog !== undefined)
            appendFileSync(options.effectLog, `${input.id} ${process.pid}\n`);
        });
        return 'deployed';
      },
      wait: async (
        ctx: restate.Context,
        input: { sessionKey: string; id: string },
      ): Promise<ConfirmDecision> => awaitConfirmation(ctx, confirmations, input.sessionKey, input.id),
      use: async (ctx: restate.Context, input: DeployInput): Promise<AuthorizeResult> =>
        ctx
          .objectClient<ConfirmationsHandlers>({ name: confirmations.name }, input.sessionKey)
          .authorize({ id: input.id, action: actionOf(input.env) }),
    },
  });
}
