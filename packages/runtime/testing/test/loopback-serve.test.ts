import {
  type LoopbackEndpoint,
  type LoopbackHandler,
  sendRequest,
  serveLoopback,
} from '@parley/testing/loopback';
import { describe, expect, it } from 'vitest';

describe('serveLoopback', () => {
  it('serves the handler on 127.0.0.1 and stops listening on close', async () => {
    const seen: string[] = [];
    const bot = await serveLoopback(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      seen.push(`${req.method} ${req.url} ${Buffer.concat(chunks).toString('utf8')}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    expect(bot.url).toBe(`http://127.0.0.1:${bot.port}`);
    const answer = await sendRequest(`${bot.url}/webhook?x=1`, { body: '{"update_id":7}' });
    expect([answer.status, answer.text]).toEqual([200, '{"ok":true}']);
    expect(seen).toEqual(['POST /webhook?x=1 {"update_id":7}']);
    await bot.close();
    await expect(sendRequest(`${bot.url}/webhook`)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('answers 500 when the handler throws or rejects before answering', async () => {
    const bot = await serveLoopback((req, res) => {
      if (req.url === '/throw') throw new Error('bad update');
      if (req.url === '/late') {
        res.writeHead(202).end();
        return Promise.reject(new Error('after the answer'));
      }
      return Promise.reject(new Error('bad signature'));
    });
    const thrown = await sendRequest(`${bot.url}/throw`);
    const rejected = await sendRequest(`${bot.url}/reject`);
    const late = await sendRequest(`${bot.url}/late`);
    expect([thrown.status, thrown.text]).toEqual([500, 'Error: bad update']);
    expect([rejected.status, rejected.text]).toEqual([500, 'Error: bad signature']);
    expect(late.status).toBe(202);
    await bot.close();
  });

  it('destroys a connection the handler still holds when it closes', async () => {
    let held = (): void => undefined;
    const arrived = new Promise<void>((resolve) => {
      held = resolve;
    });
    const bot = await serveLoopback(() => held()); // never answers
    const pending = sendRequest(`${bot.url}/hang`);
    await arrived;
    await bot.close();
    await expect(pending).rejects.toThrow(/socket hang up|ECONNRESET/);
  });
});

describe('serve.ts TSDoc examples', () => {
  it('serveLoopback', async () => {
    const seen: string[] = [];
    const bot = await serveLoopback((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    const answer = await sendRequest(`${bot.url}/webhook`, { body: '{"update_id":1}' });
    expect([answer.status, answer.text, seen]).toEqual([200, '{"ok":true}', ['POST /webhook']]);
    await bot.close();
  });

  it('LoopbackEndpoint and LoopbackHandler', async () => {
    const handler: LoopbackHandler = (_req, res) => void res.end('ok');
    const bot: LoopbackEndpoint = await serveLoopback(handler);
    expect(bot.url === `http://127.0.0.1:${bot.port}`).toBe(true);
    expect((await sendRequest(bot.url)).text).toBe('ok');
    await bot.close();
  });
});
