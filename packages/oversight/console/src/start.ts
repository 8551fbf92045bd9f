import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createConsole } from './console.js';
import { ConsoleError } from './errors.js';
import type { ConsoleOptions } from './options.js';

/**
 * Options of {@link startConsole}: the console's options plus where to listen.
 *
 * @example
 * ```ts
 * import type { StartConsoleOptions } from '@parley/console';
 * import { createMemoryStore } from '@parley/core';
 *
 * const options: StartConsoleOptions = { store: createMemoryStore(), port: 0, host: '127.0.0.1' };
 * ```
 */
export interface StartConsoleOptions extends ConsoleOptions {
  /** The port (default 0: a free one, see `url`). */
  readonly port?: number;
  /** The interface (default `127.0.0.1`: this machine only). */
  readonly host?: string;
}

/**
 * A console listening on its own port: its URL and how to stop it.
 *
 * @example
 * ```ts
 * import type { RunningConsole } from '@parley/console';
 *
 * async function stop(running: RunningConsole): Promise<void> {
 *   console.log(`closing ${running.url}`);
 *   await running.close();
 * }
 * ```
 */
export interface RunningConsole {
  /** `http://<host>:<port>/`, ready to open. */
  readonly url: string;
  /** Stops listening and ends open connections. */
  close(): Promise<void>;
}

/**
 * Starts the console on its own HTTP server (Node only), by default on a free port of the loopback
 * interface, and resolves once it listens.
 *
 * @throws ConsoleError `invalid_argument` for a bad option or port; rejects when the port is taken.
 * @example
 * ```ts
 * import { startConsole } from '@parley/console';
 * import { createMemoryStore } from '@parley/core';
 *
 * const running = await startConsole({ store: createMemoryStore() });
 * console.log(running.url.startsWith('http://127.0.0.1:')); // true
 * await running.close();
 * ```
 */
export async function startConsole(options: StartConsoleOptions): Promise<RunningConsole> {
  const { port = 0, host = '127.0.0.1', ...rest } = options;
  if (!Number.isSafeInteger(port) || port < 0 || port > 65_535) {
    throw new ConsoleError('invalid_argument', 'port must be an integer in 0…65535');
  }
  const handler = createConsole(rest);
  const server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port: bound } = server.address() as AddressInfo; // a TCP server listening: always an AddressInfo
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
