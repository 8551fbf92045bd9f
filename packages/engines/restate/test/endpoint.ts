// A Restate service endpoint in this process (HTTP/2 on a free loopback port), and calls through the ingress.
import { createServer, type Http2Server } from 'node:http2';
import * as restate from '@restatedev/restate-sdk';
import { afterAll, beforeAll } from 'vitest';
import { http } from './http.js';
import { freePorts, type RestateServer, startRestate } from './server.js';

type Services = restate.EndpointOptions['services'];

export interface Endpoint {
  readonly url: string;
  close(): Promise<void>;
}

/** Serves `services` on a free port; `identityKeys` makes it accept only requests signed by those keys. */
export async function serveEndpoint(
  services: Services,
  options: { readonly identityKeys?: string[] } = {},
): Promise<Endpoint> {
  const [port] = await freePorts(1);
  const handler = restate.createEndpointHandler({
    services,
    ...(options.identityKeys === undefined ? {} : { identityKeys: options.identityKeys }),
    logger: () => {},
  });
  const server: Http2Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const sessions = new Set<import('node:http2').ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      for (const session of sessions) session.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Calls a handler through the ingress and returns its JSON answer; fails with the status and body otherwise. */
export async function call<T>(ingressUrl: string, path: string, body: unknown = null): Promise<T> {
  const { status, text } = await http('POST', `${ingressUrl}/${path}`, body);
  if (status < 200 || status >= 300) throw new Error(`POST /${path} answered ${status}: ${text}`);
  return (text === '' ? null : JSON.parse(text)) as T;
}

/** Sends a call without waiting for its result (ingress `/send`); returns the invocation id. */
export async function send(ingressUrl: string, path: string, body: unknown = null): Promise<string> {
  const answer = await call<{ invocationId: string }>(ingressUrl, `${path}/send`, body);
  return answer.invocationId;
}

/** The output of an invocation started with `send`, once it has one (ingress attach blocks until then). */
export async function outputOf(ingressUrl: string, invocationId: string): Promise<unknown> {
  const answer = await http('GET', `${ingressUrl}/restate/invocation/${invocationId}/attach`);
  if (answer.status !== 200)
    throw new Error(`attach to ${invocationId} answered ${answer.status}: ${answer.text}`);
  return JSON.parse(answer.text);
}

/** A real server with `services` served and registered; `stop` closes the endpoint, then the server. */
export async function serveOnRestate(
  services: Services,
): Promise<{ readonly server: RestateServer; stop(): Promise<void> }> {
  const server = await startRestate();
  const endpoint = await serveEndpoint(services);
  await server.register(endpoint.url);
  return {
    server,
    async stop() {
      await endpoint.close();
      await server.stop();
    },
  };
}

/** A real server with `services` for the whole test file (started before all, stopped after); read `.server` in tests. */
export function onRestate(services: Services): { readonly server: RestateServer } {
  const held: { server?: RestateServer; stop?: () => Promise<void> } = {};
  beforeAll(async () => {
    Object.assign(held, await serveOnRestate(services));
  });
  afterAll(async () => held.stop?.());
  return {
    get server(): RestateServer {
      if (held.server === undefined)
        throw new Error('the Restate server is used before beforeAll started it');
      return held.server;
    },
  };
}
