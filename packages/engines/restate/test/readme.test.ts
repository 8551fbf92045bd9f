// The README's snippet: the services between the #region markers below must appear verbatim in the
// README's code block, and they run here against a real Restate server.
import { readFileSync } from 'node:fs';
import { shutdownProtocol } from '@parley/correlate';
import * as restate from '@restatedev/restate-sdk';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { awaitRequest, defineRequests } from '../src/index.js';
import { call, send, serveOnRestate } from './endpoint.js';
import { http } from './http.js';
import { type RestateServer, waitFor } from './server.js';
import { responseTo } from './services.js';

// #region services
// One Virtual Object per request_id: open, reply, cancel, get (and expire/watch, ingress-private).
const requests = defineRequests({ name: 'requests', protocols: [shutdownProtocol] });

// Any Restate handler can wait for a request durably and act once on the decision.
const lead = restate.service({
  name: 'lead',
  handlers: {
    shutdown: async (ctx: restate.Context, id: string): Promise<string> => {
      const record = await awaitRequest(ctx, requests, id);
      if (record.state !== 'approved') return record.state;
      await ctx.run('stop workers', () => console.log(`stopping, as ${record.to} approved`));
      return 'stopped';
    },
  },
});
// #endregion

let server: RestateServer;

let stop: (() => Promise<void>) | undefined;
beforeAll(async () => {
  ({ server, stop } = await serveOnRestate([requests, lead]));
});
afterAll(async () => stop?.());

it('shows the services this test runs, verbatim', () => {
  const self = readFileSync(new URL(import.meta.url), 'utf8');
  const region = self.slice(self.indexOf('// #region services\n') + 20, self.indexOf('// #endregion'));
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  expect(region.length).toBeGreaterThan(200);
  expect(readme).toContain(region);
});

it('runs the README’s requests: the lead acts once the responder approved', async () => {
  await call(server.ingressUrl, 'requests/r1/open', {
    protocol: 'shutdown',
    from: 'lead',
    to: 'alice',
    payload: {},
  });
  const invocation = await send(server.ingressUrl, 'lead/shutdown', 'r1');
  await waitFor(
    'the lead to wait on r1',
    20_000,
    async () => (await server.state('requests', 'r1', 'watchers')) !== undefined,
  );
  expect(await call(server.ingressUrl, 'requests/r1/reply', responseTo('r1'))).toMatchObject({ ok: true });
  const output = await http('GET', `${server.ingressUrl}/restate/invocation/${invocation}/attach`);
  expect(JSON.parse(output.text)).toBe('stopped');
});
