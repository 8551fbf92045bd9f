import { describe, expect, it } from 'vitest';
import { MAX_TEXT_LENGTH } from '../src/index.js';
import { memory, putPending, serve } from './helpers.js';

const SCRIPT = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned=2">';
const BIDI = 'pay \u202Eevil.exe\u202C \u2066x\u2069 \u200F';

describe('hostile text in chat names and summaries', () => {
  it('escapes markup, so a script tag or an event handler is text', async () => {
    const { clock, store } = memory();
    await putPending(store, clock, {
      id: 'c1',
      sessionKey: `feishu:${SCRIPT}`,
      summary: SCRIPT,
      requester: '"><b>x',
    });
    const { get } = await serve({ store, clock });
    const html = (await get('/confirmations')).text;
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;window.__pwned = 1&lt;/script&gt;');
    expect(html).toContain('&quot;&gt;&lt;b&gt;x');
  });

  it('shows bidi overrides and isolates as visible code points, inside an isolating element', async () => {
    const { clock, store } = memory();
    await putPending(store, clock, { id: 'c1', summary: BIDI });
    const { get, json } = await serve({ store, clock });
    const html = (await get('/confirmations')).text;
    expect(html).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200E\u200F]/);
    expect(html).toContain('<bdi>pay [U+202E]evil.exe[U+202C] [U+2066]x[U+2069] [U+200F]</bdi>');
    const view = await json<{ items: { summary: string }[] }>('/confirmations');
    expect(view.items[0]?.summary).toBe('pay [U+202E]evil.exe[U+202C] [U+2066]x[U+2069] [U+200F]');
  });

  it('cuts a 100 kB string to MAX_TEXT_LENGTH with a marker saying how much was left out', async () => {
    const { clock, store } = memory();
    const long = 'A'.repeat(100_000);
    await putPending(store, clock, { id: 'c1', sessionKey: long, summary: `😀${long}` });
    const { get } = await serve({ store, clock });
    const res = await get('/confirmations');
    expect(res.text).toContain(
      `${'A'.repeat(MAX_TEXT_LENGTH)} … [${100_000 - MAX_TEXT_LENGTH} more characters]`,
    );
    expect(res.text.length).toBeLessThan(10_000);
  });

  it('never splits a surrogate pair where it cuts', async () => {
    const { clock, store } = memory();
    await putPending(store, clock, { id: 'c1', summary: `${'a'.repeat(MAX_TEXT_LENGTH - 1)}😀tail` });
    const { json } = await serve({ store, clock });
    const view = await json<{ items: { summary: string }[] }>('/confirmations');
    expect(view.items[0]?.summary).toBe(`${'a'.repeat(MAX_TEXT_LENGTH - 1)} … [6 more characters]`);
  });

  it('shows control characters other than tab and newline as code points', async () => {
    const { clock, store } = memory();
    await putPending(store, clock, { id: 'c1', summary: 'a\u0000b\u001bc\u0085d\te\nf' });
    const { json } = await serve({ store, clock });
    const view = await json<{ items: { summary: string }[] }>('/confirmations');
    expect(view.items[0]?.summary).toBe('a[U+0000]b[U+001B]c[U+0085]d\te\nf');
  });
});
