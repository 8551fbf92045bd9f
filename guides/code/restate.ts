// The code of guides/restate.md: a confirmation on a Restate server. tests/guides-restate.test.ts
// runs main() against a real restate-server from node_modules.
// #region services
import { createServer } from 'node:http2';
import {
  awaitConfirmation,
  type ConfirmationsHandlers,
  type ConfirmOutbound,
  defineConfirmations,
} from '@parley/restate';
import * as restate from '@restatedev/restate-sdk';

export const sent: ConfirmOutbound[] = [];
export const dropped: string[] = [];

// One Virtual Object per chat session; every reply is decided by @parley/confirm's pure step.
export const confirmations = defineConfirmations({
  name: 'confirmations',
  // Post the prompt, notices and decisions to the chat; answer false when the platform refused it.
  send: async (out) => {
    sent.push(out);
    return true;
  },
});

// The tool asks, waits durably (a timer and an awakeable, not a promise in memory), is authorized
// once for exactly this action, and acts inside ctx.run, so a crash after the decision acts once.
export const tool = restate.service({
  name: 'tool',
  handlers: {
    drop: async (ctx: restate.Context, input: { sessionKey: string; table: string; requester: string }) => {
      const object = ctx.objectClient<ConfirmationsHandlers>({ name: 'confirmations' }, input.sessionKey);
      const action = { name: 'drop', args: { table: input.table } };
      const id = ctx.rand.uuidv4();
      const summary = `DROP TABLE ${input.table}`;
      const asked = await object.request({ id, request: { ...input, action, summary } });
      if (!asked.ok) return asked.code;
      const decision = await awaitConfirmation(ctx, confirmations, input.sessionKey, id);
      if (decision.outcome !== 'confirmed') return decision.outcome;
      const authorized = await object.authorize({ id, action });
      if (!authorized.ok) return authorized.code;
      await ctx.run('drop', () => {
        dropped.push(input.table);
      });
      return 'dropped';
    },
  },
});
// #endregion services

import { request } from 'node:http';
import { freeLoopbackPorts, startRestateServer } from '@parley/restate/testing';

/** One JSON call over node:http (a POST with `body`, a GET without). */
function call(url: string, body?: unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const method = body === undefined ? 'GET' : 'POST';
    const req = request(url, { method, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve(JSON.parse(text)));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** Runs the guide's round trip on a local server; returns what the tool answered and what the chat saw. */
export async function main(): Promise<{ result: unknown; reply: unknown; sent: string[] }> {
  // #region run
  // A local server for development (in production: your Restate deployment).
  const server = await startRestateServer();
  const [port] = await freeLoopbackPorts(1);
  const endpoint = createServer(restate.createEndpointHandler({ services: [confirmations, tool] }));
  await new Promise<void>((resolve) => endpoint.listen(port, '127.0.0.1', resolve));
  await server.register(`http://127.0.0.1:${port}`);

  // The agent calls the tool; it waits for a person, so send it (`/send`) and keep the invocation id.
  const input = { sessionKey: 'feishu:oc_1', table: 'orders', requester: 'alice' };
  const invocation = (await call(`${server.ingressUrl}/tool/drop/send`, input)) as { invocationId: string };

  // The chat adapter delivers the session's messages to its object once the prompt is out.
  for (let i = 0; !sent.some((out) => out.type === 'prompt'); i++) {
    if (i > 800) throw new Error('the prompt was not sent within 20 s');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const reply = await call(`${server.ingressUrl}/confirmations/feishu:oc_1/reply`, {
    text: '确认',
    senderId: 'alice',
  });
  const result = await call(`${server.ingressUrl}/restate/invocation/${invocation.invocationId}/attach`);
  // #endregion run
  endpoint.close();
  await server.stop();
  return { result, reply, sent: sent.map((out) => out.type) };
}
