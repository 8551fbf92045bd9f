// Nobody else gets in: the endpoint takes only requests its Restate server signed, and a wait is
// decided only through Parley's rules, never by a resolve sent straight to the ingress.
import { connect } from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestRecord } from '../src/index.js';
import { call, type Endpoint, serveEndpoint } from './endpoint.js';
import { http } from './http.js';
import { identityPair } from './identity.js';
import { leadService, requests, responseTo } from './services.js';
import { type RestateServer, startRestate, waitFor } from './server.js';

const lead = leadService();
const serverKey = identityPair();
const otherKey = identityPair();

let server: RestateServer;
const endpoints: Endpoint[] = [];

beforeAll(async () => {
  server = await startRestate({ identityPrivateKeyPem: serverKey.privateKeyPem });
  await server.register((await endpointTrusting(serverKey.publicKey)).url);
});
afterAll(async () => {
  for (const endpoint of endpoints) await endpoint.close();
  await server?.stop();
});

async function endpointTrusting(key: string): Promise<Endpoint> {
  const endpoint = await serveEndpoint([requests, lead], { identityKeys: [key] });
  endpoints.push(endpoint);
  return endpoint;
}

/** One HTTP/2 request straight to the endpoint, bypassing the server: its status. */
function unsignedStatus(url: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const session = connect(url);
    session.on('error', reject);
    const req = session.request({ ':method': 'GET', ':path': path });
    let status = 0;
    req.on('response', (headers) => {
      status = Number(headers[':status']);
    });
    req.resume();
    req.on('end', () => session.close(() => resolve(status)));
    req.on('error', reject);
    req.end();
  });
}

describe('request identity', () => {
  it('refuses to be registered by a server whose key it does not trust', async () => {
    const endpoint = await endpointTrusting(otherKey.publicKey);
    await expect(server.register(endpoint.url)).rejects.toThrow(/registering .* failed \(\d+\).*401/s);
  });

  it('refuses a request that does not come signed from its server', async () => {
    const endpoint = await endpointTrusting(serverKey.publicKey);
    expect(await unsignedStatus(endpoint.url, '/discover')).toBe(401);
  });

  it('serves the requests its own server signs', async () => {
    const opened = await call(server.ingressUrl, 'requests/signed-1/open', {
      protocol: 'shutdown',
      from: 'lead',
      to: 'alice',
      payload: {},
    });
    expect(opened).toMatchObject({ ok: true });
  });
});

describe('a resolve that did not pass the rules', () => {
  it('keeps the internal handlers (expire, watch) out of the ingress', async () => {
    await call(server.ingressUrl, 'requests/private-1/open', {
      protocol: 'shutdown',
      from: 'lead',
      to: 'alice',
      payload: {},
    });
    const forgedExpire = await http('POST', `${server.ingressUrl}/requests/private-1/expire`, null);
    expect(forgedExpire.status).toBeGreaterThanOrEqual(400);
    const record = await call<RequestRecord>(server.ingressUrl, 'requests/private-1/get');
    expect(record.state).toBe('pending');
  });

  it('decides nothing when an awakeable is resolved or rejected straight through the ingress', async () => {
    const id = 'forged-1';
    await call(server.ingressUrl, `requests/${id}/open`, {
      protocol: 'shutdown',
      from: 'lead',
      to: 'alice',
      payload: {},
    });
    const waited = call<RequestRecord>(server.ingressUrl, 'lead/await', id);
    const awakeable = await watcherOf(id);
    const forged = { id, state: 'rejected', response: { approve: false }, reason: 'forged' };
    const resolved = await http(
      'POST',
      `${server.ingressUrl}/restate/awakeables/${awakeable}/resolve`,
      forged,
    );
    expect(resolved.status).toBeLessThan(300); // Restate took it: the awakeable is resolved
    const rewatched = await watcherOf(id, awakeable); // the waiter read the record back and waits again
    const rejected = await http(
      'POST',
      `${server.ingressUrl}/restate/awakeables/${rewatched}/reject`,
      'forged',
    );
    expect(rejected.status).toBeLessThan(300);
    await watcherOf(id, rewatched);
    expect(await call<RequestRecord>(server.ingressUrl, `requests/${id}/get`)).toMatchObject({
      state: 'pending',
    });
    await call(server.ingressUrl, `requests/${id}/reply`, responseTo(id));
    expect(await waited).toMatchObject({ id, state: 'approved', response: { approve: true } });
  });
});

/** The awakeable id a waiter registered on request `id` (other than `previous`). */
async function watcherOf(id: string, previous?: string): Promise<string> {
  let found: string | undefined;
  await waitFor(`a waiter on request ${id} to register an awakeable`, 20_000, async () => {
    const watchers = ((await server.state('requests', id, 'watchers')) ?? []) as string[];
    found = watchers.find((w) => w !== previous);
    return found !== undefined;
  });
  return found as string;
}
