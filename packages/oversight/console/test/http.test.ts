import type { Store } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { memory, putPending, serve } from './helpers.js';

describe('every answer', () => {
  it('carries a CSP with no script and no framing, nosniff and no-store', async () => {
    const { store } = memory();
    const { get } = await serve({ store });
    for (const path of ['/', '/confirmations', '/nope', '/style.css', '/runs?format=json']) {
      const { headers } = await get(path);
      const csp = headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toMatch(/script-src|unsafe-inline|https?:/);
      expect(headers.get('x-content-type-options')).toBe('nosniff');
      expect(headers.get('x-frame-options')).toBe('DENY');
      expect(headers.get('cache-control')).toBe('no-store');
    }
  });

  it('serves HTML with no script element and the stylesheet by URL', async () => {
    const { store } = memory();
    const { get } = await serve({ store });
    const page = await get('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('<link rel="stylesheet" href="/style.css">');
    expect(page.text).not.toMatch(/<script|\sstyle=|\son[a-z]+=/i);
    const css = await get('/style.css');
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(css.text).toContain('.tampered');
  });

  it('refreshes a page with a meta refresh only when refreshSeconds is set', async () => {
    const { store } = memory();
    expect((await (await serve({ store })).get('/')).text).not.toContain('http-equiv="refresh"');
    expect((await (await serve({ store, refreshSeconds: 7 })).get('/')).text).toContain(
      '<meta http-equiv="refresh" content="7">',
    );
  });
});

describe('refusals', () => {
  it('answers 404 not_found for an unknown page, run or chain', async () => {
    const { store } = memory();
    const { get, json } = await serve({ store });
    for (const path of ['/nope', '/runs/r404', '/ledger/none', '/runs/%E0%A4%A']) {
      expect((await get(path)).status).toBe(404);
    }
    expect(await json('/nope')).toEqual({ ok: false, code: 'not_found', message: 'No such page.' });
  });

  it('is read-only: anything but GET and HEAD is 405 method_not_allowed', async () => {
    const { store } = memory();
    const { get } = await serve({ store });
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const res = await get('/confirmations', { method });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD');
    }
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const { store } = memory();
    const { get } = await serve({ store });
    const res = await get('/confirmations', { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    expect(Number(res.headers.get('content-length'))).toBeGreaterThan(0);
  });

  it('refuses a cursor that is empty or longer than 1024 characters, and a chain cursor that is not a line', async () => {
    const { store } = memory();
    const { get, json } = await serve({ store });
    expect((await get('/confirmations?after=')).status).toBe(400);
    expect((await get(`/confirmations?after=${'x'.repeat(1025)}`)).status).toBe(400);
    expect(await json('/ledger/s1?after=-1')).toMatchObject({ ok: false, code: 'invalid_argument' });
  });

  it('answers 500 store_failed when the store cannot be listed, without its error text', async () => {
    const { store: inner } = memory();
    const store: Store = {
      ...inner,
      list: () => {
        throw new Error('secret connection string redis://user:pw@host');
      },
    };
    const { get, json } = await serve({ store });
    const res = await get('/confirmations');
    expect(res.status).toBe(500);
    expect(res.text).not.toContain('secret');
    expect(await json('/runs')).toEqual({
      ok: false,
      code: 'store_failed',
      message: 'The store could not be read.',
    });
  });
});

describe('mounting under a path (basePath)', () => {
  it('serves under the base path and links inside it', async () => {
    const { clock, store } = memory();
    await putPending(store, clock, { id: 'c1' });
    const { get } = await serve({ store, basePath: '/console' });
    const page = await get('/console/confirmations');
    expect(page.status).toBe(200);
    expect(page.text).toContain('href="/console/runs"');
    expect(page.text).toContain('href="/console/style.css"');
    expect((await get('/console')).status).toBe(200);
  });

  it('serves a request whose mount path the framework already removed (Express app.use)', async () => {
    const { store } = memory();
    const { get } = await serve({ store, basePath: '/console' });
    const page = await get('/ledger');
    expect(page.status).toBe(200);
    expect(page.text).toContain('href="/console/confirmations"');
  });
});

describe('the overview', () => {
  it('lists the sections, as HTML and as JSON', async () => {
    const { store } = memory();
    const { get, json } = await serve({ store });
    expect((await get('/')).text).toContain('Unknown outcomes');
    expect(await json('/')).toEqual({
      ok: true,
      sections: ['/confirmations', '/confirmations/settled', '/runs', '/unknown', '/ledger'],
    });
  });
});
