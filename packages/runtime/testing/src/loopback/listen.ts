import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A server listening on 127.0.0.1, and how to stop it with every connection it holds. */
export interface Listening {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 and an ephemeral port; `close` destroys the connections (upgraded ones too). */
export async function listenOnLoopback(server: Server): Promise<Listening> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo; // a TCP server: an AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
