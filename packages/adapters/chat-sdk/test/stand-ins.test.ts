// The exported stand-ins on their own, over HTTP: what they serve, check and refuse, and how they
// deliver to a bot given as a URL.
import { createManualClock, isParleyError } from '@parley/core';
import { sendRequest, startLoopbackServer } from '@parley/testing/loopback';
import { describe, expect, it } from 'vitest';
import { createDiscordStandIn, createTeamsStandIn, snowflakeAt, trustTeamsStandIn } from '../src/testing.js';

const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);
const ALICE = { id: '300000000000000001', username: 'alice' };

describe('the Discord stand-in', () => {
  it('answers only the bot token, looks up its channel and threads, and refuses unknown ones', async () => {
    const discord = await createDiscordStandIn({ clock: createManualClock({ now: T0 }) });
    const auth = { authorization: `Bot ${discord.botToken}` };
    const get = (path: string, headers = auth) =>
      sendRequest(`${discord.url}${path}`, { method: 'GET', headers });
    expect((await get(`/channels/${discord.channelId}`, { authorization: 'Bot wrong' })).status).toBe(401);
    expect(JSON.parse((await get(`/channels/${discord.channelId}`)).text)).toMatchObject({ type: 0 });
    const thread = await sendRequest(`${discord.url}/channels/${discord.channelId}/messages/1/threads`, {
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{"name":"t"}',
    });
    const { id } = JSON.parse(thread.text) as { id: string };
    expect(id).toBe(snowflakeAt(T0, 10));
    expect(JSON.parse((await get(`/channels/${id}`)).text)).toMatchObject({
      type: 11,
      parent_id: discord.channelId,
    });
    expect((await get('/channels/999')).status).toBe(404);
    expect((await get('/gateway')).status).toBe(404);
    await discord.close();
  });

  it('delivers to a bot given as a URL, with the Gateway token, and rejects a click on a button it lacks', async () => {
    const bot = await startLoopbackServer({ routes: [{ path: '/discord', answer: () => ({ text: 'ok' }) }] });
    const discord = await createDiscordStandIn({ bot: `${bot.url}/discord` });
    const answer = await discord.message(ALICE, 'in a thread', {
      channelId: '400000000000000001',
      bot: true,
    });
    expect(answer).toEqual({ status: 200, text: 'ok' });
    const body = bot.requests[0]?.body as { data: { channel_type: number; author: { bot: boolean } } };
    expect(body.data).toMatchObject({ channel_type: 11, author: { bot: true } });
    expect(bot.requests[0]?.headers['x-discord-gateway-token']).toBe(discord.botToken);
    const refusal = await discord.click(ALICE, { id: '1', channel_id: discord.channelId }, 0).catch((e) => e);
    expect(isParleyError(refusal, 'invalid_argument')).toBe(true);
    await discord.close();
    await bot.close();
  });

  it('refuses to deliver before it has a bot', async () => {
    const discord = await createDiscordStandIn();
    const refusal = await discord.message(ALICE, 'hello').catch((error: unknown) => error);
    expect(isParleyError(refusal, 'invalid_argument')).toBe(true);
    await discord.close();
  });
});

describe('the Teams stand-in', () => {
  it('publishes its OpenID metadata and keys, and answers the Bot Connector only with its token', async () => {
    const teams = await createTeamsStandIn();
    const metadata = await sendRequest(teams.cloud.openIdMetadataUrl, { method: 'GET' });
    const { issuer, jwks_uri } = JSON.parse(metadata.text) as { issuer: string; jwks_uri: string };
    expect(issuer).toBe(teams.cloud.tokenIssuer);
    const keys = JSON.parse((await sendRequest(jwks_uri, { method: 'GET' })).text) as {
      keys: { kty: string }[];
    };
    expect(keys.keys).toMatchObject([{ kty: 'RSA', alg: 'RS256', use: 'sig' }]);
    const post = (authorization: string) =>
      sendRequest(`${teams.url}/v3/conversations/${encodeURIComponent(teams.conversationId)}/activities`, {
        headers: { authorization, 'content-type': 'application/json' },
        body: '{"type":"message","text":"hi"}',
      });
    expect((await post('Bearer forged')).status).toBe(401);
    teams.failNext(429);
    expect(JSON.parse((await post(`Bearer ${teams.token()}`)).text)).toMatchObject({
      error: { code: 'Throttled' },
    });
    expect((await post(`Bearer ${teams.token()}`)).status).toBe(201);
    await teams.waitForSent(1);
    expect(teams.sent).toMatchObject([{ conversationId: teams.conversationId, text: 'hi', buttons: [] }]);
    await teams.close();
  });

  it('rejects a click on a button the card lacks, and trusting something that is not a Teams adapter', async () => {
    const teams = await createTeamsStandIn({ bot: async () => new Response('') });
    const card = { id: 'a1', conversationId: teams.conversationId, buttons: [], activity: {} };
    const refusal = await teams.click({ id: '29:a', name: 'A' }, card, 0).catch((error: unknown) => error);
    expect(isParleyError(refusal, 'invalid_argument')).toBe(true);
    let thrown: unknown;
    try {
      trustTeamsStandIn({}, teams);
    } catch (error) {
      thrown = error;
    }
    expect(isParleyError(thrown, 'invalid_argument')).toBe(true);
    await teams.close();
  });
});
