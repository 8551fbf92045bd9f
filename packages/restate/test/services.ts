// The services the tests bind: correlated requests, and a lead that waits for one then acts once.
import { appendFileSync } from 'node:fs';
import { shutdownProtocol } from '@parley/correlate';
import * as restate from '@restatedev/restate-sdk';
import { awaitRequest, defineRequests, type RequestRecord } from '../src/index.js';

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
