import { describe, expect, it } from 'vitest';
import { memory, putPending, serve } from './helpers.js';

describe('authenticate', () => {
  it('answers 401 and nothing else to a request it refuses, on every page', async () => {
    const { clock, store } = memory();
    await putPending(store, clock, { id: 'c1', summary: 'Delete the secret table' });
    const { get } = await serve({ store, authenticate: (req) => req.headers.authorization === 'Bearer ok' });
    for (const path of ['/', '/confirmations', '/confirmations?format=json', '/style.css', '/nope']) {
      const res = await get(path);
      expect(res.status).toBe(401);
      expect(res.text).toBe('Authentication required.\n');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    }
    const post = await get('/confirmations', { method: 'POST' });
    expect(post.status).toBe(401);
  });

  it('serves a request the hook accepts, sync or async', async () => {
    const { clock, store } = memory();
    await putPending(store, clock, { id: 'c1', summary: 'Delete the old orders' });
    const { get } = await serve({
      store,
      authenticate: async (req) => req.headers.authorization === 'Bearer ok',
    });
    const res = await get('/confirmations', { headers: { authorization: 'Bearer ok' } });
    expect(res.status).toBe(200);
    expect(res.text).toContain('Delete the old orders');
  });

  it('fails closed when the hook throws or answers anything but true', async () => {
    const { store } = memory();
    const throwing = await serve({
      store,
      authenticate: () => {
        throw new Error('auth backend down');
      },
    });
    expect((await throwing.get('/')).status).toBe(401);
    const truthy = await serve({ store, authenticate: () => 'yes' as unknown as boolean });
    expect((await truthy.get('/')).status).toBe(401);
  });
});
