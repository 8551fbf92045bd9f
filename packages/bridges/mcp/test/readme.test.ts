// The README's first snippet: the code between the #region markers below is the README's code
// block without its imports, and it runs here against the real SDK and a fake chat.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createMessageBus } from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import { createFakeChannel } from '@parley/testing';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { createMcpClientGate } from '../src/index.js';
import { captureLogs, readmeFirstBlock, regionOf } from '../../../../tests/support/readme-block.js';

const logged = captureLogs();

it('shows the code that runs here', () => {
  expect(readmeFirstBlock(new URL('../README.md', import.meta.url))).toBe(
    regionOf(new URL(import.meta.url), 'client'),
  );
});

it('runs the client snippet: the person confirms, the tool runs; bad arguments come back as feedback', async () => {
  // #region client
  // A server with one destructive tool (your real server is reached over stdio or HTTP instead).
  const server = new McpServer({ name: 'files', version: '1.0.0' });
  const files = new Map([['a.txt', 'alpha']]);
  server.registerTool(
    'delete_file',
    {
      description: 'Deletes a file',
      inputSchema: { path: z.string() },
      annotations: { destructiveHint: true },
    },
    ({ path }) => ({
      content: [{ type: 'text', text: files.delete(path) ? `deleted ${path}` : `no ${path}` }],
    }),
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'bot', version: '1.0.0' });
  await client.connect(clientSide);

  // The chat the person answers in (a fake one here; a grammY / Slack / Feishu adapter in production).
  const bus = createMessageBus();
  const chat = createFakeChannel({ channel: 'feishu' });
  await bus.attach(chat);
  const confirm = createConfirmGate({ bus });

  const bridge = await createMcpClientGate({ client, confirm });
  // Give bridge.tools to the model; send its calls here, with the chat and person of the turn.
  const prompted = new Promise((resolve) => confirm.on('prompted', resolve));
  const pending = bridge.callTool(
    { name: 'delete_file', arguments: { path: 'a.txt' } },
    { sessionKey: 'feishu:g1', requester: 'alice' },
  );
  await prompted; // "以下操作需要确认 … [delete_file · …] delete_file {"path":"a.txt"}" was sent to g1
  await chat.say('g1', 'alice', '确认');
  console.log((await pending).content); // [ { type: 'text', text: 'deleted a.txt' } ]

  const refused = await bridge.callTool({ name: 'delete_file', arguments: { file: 'a.txt' } });
  console.log(refused.isError, refused.content[0]); // true { type: 'text', text: 'The arguments are invalid: …' }
  await confirm.close();
  await client.close();
  // #endregion
  expect(logged[0]).toEqual([[{ type: 'text', text: 'deleted a.txt' }]]);
  expect(logged[1]?.[0]).toBe(true);
  expect(logged[1]?.[1]).toEqual({
    type: 'text',
    text: expect.stringMatching(/^The arguments are invalid: /),
  });
  expect(files.size).toBe(0);
});
