// The team's protocols on Restate: one requests Virtual Object for shutdowns and plan approvals
// (decided by @parley/correlate's rules, inside @parley/restate), and the lead's side as a service
// that waits durably for a request and acts once on the decision.
import { appendFileSync } from 'node:fs';
import { planApprovalProtocol, shutdownProtocol } from '@parley/correlate';
import { awaitRequest, defineRequests } from '@parley/restate';
import * as restate from '@restatedev/restate-sdk';

export const requests = defineRequests({
  name: 'requests',
  protocols: [shutdownProtocol, planApprovalProtocol],
});

export interface LeadOptions {
  /** Where the lead's effect writes one line per run of it (`<request_id> <teammate> <pid>`). */
  readonly effectLog?: string;
}

/** The lead: `shutdown` waits for the teammate's answer, then takes the teammate off the roster once. */
export function leadService(options: LeadOptions = {}) {
  return restate.service({
    name: 'lead',
    handlers: {
      shutdown: async (ctx: restate.Context, id: string): Promise<string> => {
        const record = await awaitRequest(ctx, requests, id);
        if (record.state !== 'approved') return record.state;
        await ctx.run('take off the roster', () => {
          if (options.effectLog !== undefined)
            appendFileSync(options.effectLog, `${id} ${record.to} ${process.pid}\n`);
        });
        return 'shut_down';
      },
    },
  });
}
