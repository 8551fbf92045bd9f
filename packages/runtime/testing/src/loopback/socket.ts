import type { IncomingMessage } from 'node:http';
import { type WebSocket, WebSocketServer } from 'ws';
import type { LoopbackServer } from './types.js';

/**
 * The upgrade request a {@link LoopbackSocketOptions.accept} check sees.
 *
 * @example
 * ```ts
 * import type { LoopbackUpgrade } from '@parley/testing/loopback-ws';
 *
 * const hasTicket = (upgrade: LoopbackUpgrade): boolean => upgrade.query['ticket'] !== undefined;
 * ```
 */
export interface LoopbackUpgrade {
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/**
 * Where {@link startLoopbackSocket} listens and whom it lets in.
 *
 * @example
 * ```ts
 * import type { LoopbackSocketOptions } from '@parley/testing/loopback-ws';
 *
 * const options: LoopbackSocketOptions = {
 *   path: '/link',
 *   accept: (upgrade) => upgrade.query['ticket'] === 't1',
 *   greeting: () => ({ type: 'hello', num_connections: 1 }), // Slack Socket Mode's first frame
 * };
 * ```
 */
export interface LoopbackSocketOptions {
  /** The path of the WebSocket endpoint on the server. */
  readonly path: string;
  /** Refuses an upgrade (HTTP 401) when it returns false; every upgrade to `path` is accepted by default. */
  readonly accept?: (upgrade: LoopbackUpgrade) => boolean;
  /**
   * The frame sent to each client as soon as its connection is open, before `connected()`
   * resolves (Slack Socket Mode's `hello`, without which the client never reports itself
   * connected); JSON-encoded unless it is a string. None by default.
   */
  readonly greeting?: (upgrade: LoopbackUpgrade) => unknown;
}

/**
 * A WebSocket endpoint on a {@link LoopbackServer}, for platforms whose events arrive over a
 * socket (DingTalk stream mode, Slack Socket Mode): it sends JSON frames to the connected client
 * and records the frames the client sends back (parsed JSON, or the text).
 *
 * @example
 * ```ts
 * import { startLoopbackServer } from '@parley/testing/loopback';
 * import { startLoopbackSocket, type LoopbackSocket } from '@parley/testing/loopback-ws';
 *
 * const server = await startLoopbackServer({ routes: [] });
 * const socket: LoopbackSocket = startLoopbackSocket(server, { path: '/link' });
 * console.log(socket.url === `ws://127.0.0.1:${server.port}/link`); // true
 * await server.close(); // closes the socket's connections too
 * ```
 */
export interface LoopbackSocket {
  /** `ws://127.0.0.1:<port><path>`. */
  readonly url: string;
  /** Every frame the clients sent, in order. */
  readonly received: readonly unknown[];
  /** How many clients are connected now. */
  readonly connections: number;
  /** Resolves once a client is connected (at once when one is). */
  connected(): Promise<void>;
  /** Resolves when the next client connection closes. */
  disconnected(): Promise<void>;
  /** Sends `frame` (JSON-encoded unless it is a string) to every connected client. */
  send(frame: unknown): void;
  /** Resolves with the first frame received from now on that `match` accepts. */
  nextFrame(match?: (frame: unknown) => boolean): Promise<unknown>;
}

/**
 * Adds a WebSocket endpoint at `options.path` to a loopback server (see {@link LoopbackSocket}).
 * The server's `close` terminates its connections. Needs the `ws` package (an optional peer of
 * `@parley/testing`, installed by whoever imports `@parley/testing/loopback-ws`).
 *
 * @example
 * ```ts
 * import { WebSocket } from 'ws';
 * import { startLoopbackServer } from '@parley/testing/loopback';
 * import { startLoopbackSocket } from '@parley/testing/loopback-ws';
 *
 * const server = await startLoopbackServer({ routes: [] });
 * const socket = startLoopbackSocket(server, { path: '/link' });
 * const client = new WebSocket(socket.url);
 * client.on('message', (data) => client.send(JSON.stringify({ ack: JSON.parse(String(data)).id })));
 * await socket.connected();
 * const ack = socket.nextFrame();
 * socket.send({ id: 'e1', type: 'hello' });
 * console.log(await ack); // { ack: 'e1' }
 * await server.close();
 * ```
 */
export function startLoopbackSocket(server: LoopbackServer, options: LoopbackSocketOptions): LoopbackSocket {
  const wss = new WebSocketServer({ noServer: true });
  const clients = new Set<WebSocket>();
  const received: unknown[] = [];
  let frameWaiters: { match: (frame: unknown) => boolean; resolve: (frame: unknown) => void }[] = [];
  let connectWaiters: (() => void)[] = [];
  let closeWaiters: (() => void)[] = [];

  server.node.on('upgrade', (req: IncomingMessage, stream, head) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== options.path) return; // another endpoint's
    const upgrade = { path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers };
    if (options.accept !== undefined && !options.accept(upgrade)) {
      stream.end('HTTP/1.1 401 Unauthorized\r\nconnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, stream, head, (ws) => {
      clients.add(ws);
      if (options.greeting !== undefined) ws.send(encode(options.greeting(upgrade)));
      ws.on('message', (data) => {
        const frame = parse(String(data));
        received.push(frame);
        const waiter = frameWaiters.find((w) => w.match(frame));
        if (waiter === undefined) return;
        frameWaiters = frameWaiters.filter((w) => w !== waiter);
        waiter.resolve(frame);
      });
      ws.on('close', () => {
        clients.delete(ws);
        const waiting = closeWaiters;
        closeWaiters = [];
        for (const resolve of waiting) resolve();
      });
      const waiting = connectWaiters;
      connectWaiters = [];
      for (const resolve of waiting) resolve();
    });
  });

  return {
    url: `ws://127.0.0.1:${server.port}${options.path}`,
    received,
    get connections() {
      return clients.size;
    },
    connected: () =>
      clients.size > 0 ? Promise.resolve() : new Promise((resolve) => connectWaiters.push(resolve)),
    disconnected: () => new Promise((resolve) => closeWaiters.push(resolve)),
    send(frame) {
      const text = encode(frame);
      for (const client of clients) client.send(text);
    },
    nextFrame: (match = () => true) => new Promise((resolve) => frameWaiters.push({ match, resolve })),
  };
}

function encode(frame: unknown): string {
  return typeof frame === 'string' ? frame : JSON.stringify(frame);
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
