import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ElicitRequestFormParams } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import {
  type AnswerElicitationsOptions,
  answerElicitations,
  ELICITATION_ACTION,
  ELICITATION_REFUSAL_CODES,
  ELICITATION_REFUSAL_META,
  type ElicitationRefusal,
} from '../src/index.js';
import { chat, closedAfterEach, connect, SESSION } from './helpers.js';

const open = closedAfterEach();

const CONFIRM_FORM: ElicitRequestFormParams = {
  message: 'Really wipe the staging database?',
  requestedSchema: {
    type: 'object',
    properties: { confirm: { type: 'boolean' }, scope: { type: 'string', default: 'staging' } },
    required: ['confirm'],
  },
};

async function setup(more: Partial<AnswerElicitationsOptions> = {}) {
  const talk = await chat();
  const server = new McpServer({ name: 'ops', version: '1.0.0' });
  const client = await connect(server, { capabilities: { elicitation: { form: {}, url: {} } } });
  answerElicitations(client, { confirm: talk.confirm, route: SESSION, ...more });
  open.push(client, talk.confirm);
  return { talk, server, client };
}

describe('answerElicitations', () => {
  it('accepts when the person confirms in chat, with the form filled from defaults', async () => {
    const { talk, server } = await setup();
    const prompted = talk.nextPrompt();
    const asked = server.server.elicitInput(CONFIRM_FORM);
    await prompted;
    expect(talk.channel.lastSent('g1')?.text).toContain('Really wipe the staging database?');
    expect(talk.channel.lastSent('g1')?.text).toContain(ELICITATION_ACTION);
    await talk.channel.say('g1', 'alice', '确认');
    expect(await asked).toEqual({ action: 'accept', content: { confirm: true, scope: 'staging' } });
  });

  it('declines when the person cancels', async () => {
    const { talk, server } = await setup();
    const prompted = talk.nextPrompt();
    const asked = server.server.elicitInput(CONFIRM_FORM);
    await prompted;
    await talk.channel.say('g1', 'alice', '取消');
    expect(await asked).toEqual({ action: 'decline' });
  });

  it('cancels when nobody answers by the person deadline, whatever the request timeout', async () => {
    const { talk, server } = await setup({ timeoutMs: 90_000 });
    const prompted = talk.nextPrompt();
    const asked = server.server.elicitInput(CONFIRM_FORM, { timeout: 600_000 });
    await prompted;
    talk.clock.advance(90_000);
    expect(await asked).toEqual({ action: 'cancel' });
    await talk.channel.say('g1', 'alice', '确认');
    expect(talk.confirm.pending()).toEqual([]);
  });

  it('aborts the wait when the server gives up on the request first', async () => {
    const { talk, server } = await setup();
    // The SDK (1.32) ignores a cancellation of request id 0 (it tests the id for truthiness), so
    // the server's first request is a ping here.
    await server.server.ping();
    const prompted = talk.nextPrompt();
    const controller = new AbortController();
    const asked = server.server.elicitInput(CONFIRM_FORM, { signal: controller.signal });
    await prompted;
    const decided = new Promise((resolve) => talk.confirm.on('decided', resolve));
    controller.abort('server timeout');
    await expect(asked).rejects.toBeDefined();
    expect(await decided).toMatchObject({ decision: { outcome: 'aborted', reason: 'signal' } });
  });

  it('refuses unasked, with a typed refusal, a form it cannot fill, a url elicitation, and one with no route', async () => {
    const refused: ElicitationRefusal[] = [];
    const { talk, server } = await setup({
      route: (request) => (request.params.message === 'nowhere' ? undefined : SESSION),
      onRefused: (refusal) => void refused.push(refusal),
    });
    const text = await server.server.elicitInput({
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    const url = await server.server.elicitInput({
      mode: 'url',
      message: 'Sign in',
      url: 'https://example.com/login',
      elicitationId: 'e1',
    });
    const nowhere = await server.server.elicitInput({ ...CONFIRM_FORM, message: 'nowhere' });
    const refusal = (code: string) => ({
      action: 'cancel',
      _meta: {
        [ELICITATION_REFUSAL_META]: { code, message: expect.any(String), reason: expect.any(String) },
      },
    });
    expect([text, url, nowhere]).toEqual([
      refusal('unfillable_form'),
      refusal('url_mode'),
      refusal('no_route'),
    ]);
    expect(refused.map((item) => item.code)).toEqual(['unfillable_form', 'url_mode', 'no_route']);
    expect([...ELICITATION_REFUSAL_CODES].sort()).toEqual(['no_route', 'unfillable_form', 'url_mode']);
    const why = 'The form requires "name", which a confirm/cancel answer cannot fill';
    expect(refused[0]).toEqual({ code: 'unfillable_form', message: why, reason: why, request: 'Your name?' });
    expect(text._meta).toEqual({
      [ELICITATION_REFUSAL_META]: { code: 'unfillable_form', message: why, reason: why },
    });
    expect(talk.channel.sent).toEqual([]);
  });

  it('accepts an all-optional form, and cancels when the decision cannot be authorized', async () => {
    const { talk, server, client } = await setup();
    const form = {
      message: 'Proceed?',
      requestedSchema: { type: 'object' as const, properties: { note: { type: 'string' as const } } },
    };
    let prompted = talk.nextPrompt();
    const first = server.server.elicitInput(form);
    await prompted;
    await talk.channel.say('g1', 'alice', '确认');
    expect(await first).toEqual({ action: 'accept', content: {} });

    // Another gate on the same store used the decision first (authorize is single use).
    const racing = {
      ...talk.confirm,
      authorize: async (...args: Parameters<typeof talk.confirm.authorize>) => {
        await talk.confirm.authorize(...args);
        return talk.confirm.authorize(...args);
      },
    };
    answerElicitations(client, { confirm: racing, route: SESSION });
    prompted = talk.nextPrompt();
    const second = server.server.elicitInput(form);
    await prompted;
    await talk.channel.say('g1', 'alice', '确认');
    expect(await second).toEqual({ action: 'cancel' });
  });

  it('refuses a missing client, gate or route', async () => {
    const { client, talk } = await setup();
    const attempts = [
      () => answerElicitations(undefined as never, { confirm: talk.confirm, route: SESSION }),
      () => answerElicitations(client, undefined as never),
      () => answerElicitations(client, { confirm: talk.confirm, route: 'g1' as never }),
    ];
    for (const attempt of attempts)
      expect(attempt).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });
});
