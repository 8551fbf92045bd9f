import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

// The confirm gate on a fake chat, shared with the other bridges' tests.
export { type Chat, chat, closedAfterEach, SESSION } from '../../../../tests/support/confirm-chat.js';

/** A file server: read_file is read-only, delete_file destructive, touch unannotated. */
export interface Files {
  readonly server: McpServer;
  readonly files: Map<string, string>;
  /** Every call the server's handlers received, in order. */
  readonly calls: { tool: string; args: unknown }[];
  /** Runs inside read_file, while the request is in flight. */
  onRead: () => void;
}

export function fileServer(): Files {
  const files = new Map([
    ['a.txt', 'alpha'],
    ['b.txt', 'beta'],
  ]);
  const calls: Files['calls'] = [];
  const server = new McpServer({ name: 'files', version: '1.0.0' });
  const result: Files = { server, files, calls, onRead: () => {} };
  server.registerTool(
    'read_file',
    { description: 'Reads a file', inputSchema: { path: z.string() }, annotations: { readOnlyHint: true } },
    ({ path }) => {
      calls.push({ tool: 'read_file', args: { path } });
      result.onRead();
      return { content: [{ type: 'text', text: files.get(path) ?? '' }] };
    },
  );
  server.registerTool(
    'delete_file',
    {
      title: 'Delete a file',
      description: 'Deletes a file',
      inputSchema: { path: z.string() },
      annotations: { destructiveHint: true },
    },
    ({ path }) => {
      calls.push({ tool: 'delete_file', args: { path } });
      const existed = files.delete(path);
      return { content: [{ type: 'text', text: existed ? `deleted ${path}` : `no ${path}` }] };
    },
  );
  server.registerTool('touch', { description: '', inputSchema: { path: z.string() } }, ({ path }) => {
    calls.push({ tool: 'touch', args: { path } });
    files.set(path, '');
    return { content: [{ type: 'text', text: `touched ${path}` }] };
  });
  server.registerTool(
    'fs.stat',
    { description: 'Stats a file', inputSchema: { path: z.string() }, annotations: { readOnlyHint: true } },
    () => ({ content: [] }),
  );
  return result;
}

/** A real client linked to `server` over the SDK's in-memory transport. */
export async function connect(
  server: McpServer,
  capabilities: ConstructorParameters<typeof Client>[1] = {},
): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'bot', version: '1.0.0' }, capabilities);
  await client.connect(clientSide);
  return client;
}

/** Lets pending promise callbacks run (no timers involved). */
export async function flush(times = 20): Promise<void> {
  for (let i = 0; i < times; i++) await Promise.resolve();
}
