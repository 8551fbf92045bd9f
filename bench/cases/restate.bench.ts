// One confirmation round trip (request → prompt → the requester's "确认" → decision), embedded and on
// Restate, on one machine in one run. Embedded: @parley/confirm's gate on a bus and the memory store,
// in process. Restate: @parley/restate's confirmations object on a local restate-server 1.7.12 (from
// node_modules), driven over the ingress — two HTTP calls (request, reply), each answered only after
// Restate committed the handler's journal to its log. A reference ratio, not a goal: the Restate
// number is mostly the server's durable commits, and it is what a user pays for durability and
// replicas. Skipped, with a message, when the restate-server binary is not installed.
import { rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { createServer } from 'node:http2';
import { type ConfirmOutbound, defineConfirmations, type InboundResult } from '@parley/restate';
import { freeLoopbackPorts, restateServerBinary, startRestateServer } from '@parley/restate/testing';
import * as restate from '@restatedev/restate-sdk';
import { gateRoundTrip } from '../confirm-round-trip.js';
import { post } from '../ingress.js';
import { exitAfterResult, suite } from '../lib.js';

// The server would keep a case's process alive after it printed its result.
exitAfterResult();

const agent = new Agent({ keepAlive: true });

/** The confirmations object on a local server; each call asks in a new session and answers it. */
async function restateRoundTrip(): Promise<() => Promise<unknown>> {
  const server = await startRestateServer();
  process.once('exit', () => {
    void server.stop(); // sends the kill at once; the rest cannot run in an exit handler
    rmSync(server.baseDir, { recursive: true, force: true });
  });
  const send = async (_out: ConfirmOutbound): Promise<boolean> => true;
  const handler = restate.createEndpointHandler({
    services: [defineConfirmations({ name: 'confirmations', send })],
    logger: () => {},
  });
  const [port] = (await freeLoopbackPorts(1)) as [number];
  await new Promise<void>((resolve) => createServer(handler).listen(port, '127.0.0.1', resolve));
  await server.register(`http://127.0.0.1:${port}`);
  let n = 0;
  return async () => {
    const key = `feishu:c${n++}`;
    const at = `${server.ingressUrl}/confirmations/${encodeURIComponent(key)}`;
    const request = {
      sessionKey: key,
      action: { name: 'drop', args: { t: 'x' } },
      summary: 'DROP x',
      requester: 'ou_a',
    };
    await post(agent, `${at}/request`, { id: 'c1', request });
    const answered = await post<InboundResult>(agent, `${at}/reply`, { text: '确认', senderId: 'ou_a' });
    if (answered.verdict?.kind !== 'settle') throw new Error(`not decided: ${JSON.stringify(answered)}`);
  };
}

let installed = true;
try {
  restateServerBinary();
} catch (error) {
  installed = false;
  if (process.env.PARLEY_BENCH_MODE === 'list')
    process.stderr.write(`restate bench: the Restate case is skipped — ${(error as Error).message}\n`);
}

suite('restate: confirmation round trip, embedded vs a local Restate server', {
  cases: {
    'embedded gate (memory store)': gateRoundTrip,
    ...(installed ? { 'restate confirmations object': restateRoundTrip } : {}),
  },
  goals: installed ? [{ case: 'embedded gate (memory store)', vs: 'restate confirmations object' }] : [],
});
