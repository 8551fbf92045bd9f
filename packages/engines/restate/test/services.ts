// The services the tests bind: correlated requests, and a lead that waits for one then acts once.
import { appendFileSync } from 'node:fs';
import { shutdownProtocol } from '@parley/correlate';
import * as restate from '@restatedev/restate-sdk';
import { call } from './endpoint.js';
import {
  type OpenResult,
  awaitRequest,
  defineRequests,
  type RequestRecord,
  type RequestsHandlers,
  type RequestsObject,
} from '../src/index.js';

export const requests = defineRequests({ name: 'requests', protocols: [shutdownProtocol] });

export interface LeadOptions {
  /** Where the effect writes one line per run of it. */
  readonly effectLog?: string;
  /** Called inside the effect's ctx.run before it writes: a crash here is a crash between decision and effect. */
  readonly beforeEffect?: () => void;
}

/** `await` returns the settled record; `shutdown` waits for the decision, then runs its effect once (ctx.run). */
export function leadService(options: LeadOptions = {}) {
  return restate.service({
    name: 'lead',
    handlers: {
      await: async (ctx: restate.Context, id: string): Promise<RequestRecord> =>
        awaitRequest(ctx, requests, id),
      shutdown: async (ctx: restate.Context, id: string): Promise<string> => {
        const record = await awaitRequest(ctx, requests, id);
        if (record.state !== 'approved') return record.state;
        await ctx.run('shut down', () => {
          options.beforeEffect?.();
          if (options.effectLog !== undefined) appendFileSync(options.effectLog, `${id} ${process.pid}\n`);
        });
        return 'shut down';
      },
    },
  });
}

/** A service named `name` that waits on requests of `object` with `maxWakeups`. */
export function waiterService(name: string, object: RequestsObject<string>, maxWakeups?: number) {
  return restate.service({
    name,
    handlers: {
      await: async (ctx: restate.Context, id: string): Promise<RequestRecord> =>
        awaitRequest(ctx, object, id, maxWakeups === undefined ? {} : { maxWakeups }),
    },
  });
}

/** Another service of the cluster calling a request's internal `expire` before its deadline. */
export const early = restate.service({
  name: 'early',
  handlers: {
    expire: async (ctx: restate.Context, id: string): Promise<RequestRecord | null> =>
      ctx.objectClient<RequestsHandlers>({ name: requests.name }, id).expire(),
  },
});

/** A shutdown response to request `id` from alice to the lead (approving unless `extra` says otherwise). */
export function responseTo(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    kind: 'response',
    request_id: id,
    protocol: 'shutdown',
    from: 'alice',
    to: 'lead',
    response: { approve: true },
    ...extra,
  };
}

/** Opens shutdown request `id` from the lead to alice through the ingress. */
export function openShutdown(ingressUrl: string, id: string, timeoutMs: number): Promise<OpenResult> {
  return call(ingressUrl, `requests/${id}/open`, {
    protocol: 'shutdown',
    from: 'lead',
    to: 'alice',
    payload: {},
    timeoutMs,
  });
}
