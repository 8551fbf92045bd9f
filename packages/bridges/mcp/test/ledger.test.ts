import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createManualClock, createMemoryStore } from '@parley/core';
import { createLedger, verifyLedger } from '@parley/ledger';
import { describe, expect, it } from 'vitest';
import { answerElicitations } from '../src/index.js';
import { chat, closedAfterEach, connect, SESSION } from './helpers.js';

const open = closedAfterEach();

describe('a ledger given to the confirm gate that answers elicitations', () => {
  it('receives the elicitation’s request, prompt, answer, decision and authorization, and the chain verifies', async () => {
    const clock = createManualClock({ now: 1_000_000 });
    const store = createMemoryStore({ clock });
    const ledger = createLedger({ store, clock });
    const talk = await chat({ ledger }, { clock, store });
    const server = new McpServer({ name: 'ops', version: '1.0.0' });
    const client = await connect(server, { capabilities: { elicitation: { form: {}, url: {} } } });
    answerElicitations(client, { confirm: talk.confirm, route: SESSION });
    open.push(client, talk.confirm);
    const prompted = talk.nextPrompt();
    const asked = server.server.elicitInput({
      message: 'Really wipe the staging database?',
      requestedSchema: {
        type: 'object',
        properties: { confirm: { type: 'boolean' } },
        required: ['confirm'],
      },
    });
    await prompted;
    await talk.channel.say('g1', 'alice', '确认');
    expect(await asked).toMatchObject({ action: 'accept' });
    const kinds = (await ledger.entries(SESSION.sessionKey)).map((entry) => entry.body.kind);
    expect(kinds).toEqual(['request', 'prompt_delivered', 'answer', 'decision', 'authorization']);
    expect(verifyLedger(await ledger.exportLines(SESSION.sessionKey))).toMatchObject({
      ok: true,
      entries: 5,
    });
  });
});
