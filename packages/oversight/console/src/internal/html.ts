// The page around every view: one document, the stylesheet by URL (the CSP allows no inline
// style or script), a navigation bar, and helpers that escape every text they are given.
import { escapeHtml } from './text.js';

/** HTML that is already safe to emit (built only by the helpers below). */
export interface Html {
  readonly html: string;
}

/** Escapes text (already bounded and made inert by the views) and isolates its direction. */
export function t(text: string | number): Html {
  return { html: `<bdi>${escapeHtml(String(text))}</bdi>` };
}

/** Joins safe fragments. */
export function join(parts: readonly Html[], separator = ''): Html {
  return { html: parts.map((p) => p.html).join(separator) };
}

/** An element with a fixed tag and optional class, holding safe children. */
export function el(tag: string, children: readonly Html[] | Html, className?: string): Html {
  const inner = Array.isArray(children) ? join(children).html : (children as Html).html;
  const cls = className === undefined ? '' : ` class="${escapeHtml(className)}"`;
  return { html: `<${tag}${cls}>${inner}</${tag}>` };
}

/** A link whose URL is built by the console (paths and cursors are percent-encoded). */
export function a(href: string, children: Html): Html {
  return { html: `<a href="${escapeHtml(href)}">${children.html}</a>` };
}

/** A table with a header row; each row may carry a class (`bad`, `waiting`, …). */
export function table(
  headers: readonly string[],
  rows: readonly { readonly cells: readonly Html[]; readonly className?: string }[],
  empty: string,
): Html {
  if (rows.length === 0) return el('p', t(empty), 'empty');
  const head = el(
    'tr',
    headers.map((h) => el('th', t(h))),
  );
  const body = rows.map((row) =>
    el(
      'tr',
      row.cells.map((cell) => el('td', cell)),
      row.className,
    ),
  );
  return el('table', [el('thead', head), el('tbody', body)]);
}

/** An ISO time of an epoch-ms value. */
export function time(ms: number | undefined): Html {
  return ms === undefined ? t('—') : t(new Date(ms).toISOString());
}

/** A duration for people: `4 min 10 s`, `2 h 5 min`, `0 s`. */
export function duration(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** The sections of the console, in the order of its navigation bar. */
export const SECTIONS = [
  ['/confirmations', 'Waiting'],
  ['/confirmations/settled', 'Settled'],
  ['/runs', 'Pipeline runs'],
  ['/unknown', 'Unknown outcomes'],
  ['/ledger', 'Consent ledger'],
] as const;

/** The whole document of a page. */
export function page(options: {
  readonly base: string;
  readonly title: string;
  readonly body: Html;
  readonly refreshSeconds: number;
}): string {
  const { base, title, body, refreshSeconds } = options;
  const refresh = refreshSeconds > 0 ? `<meta http-equiv="refresh" content="${refreshSeconds}">` : '';
  const nav = SECTIONS.map(([path, label]) => a(`${base}${path}`, t(label)).html).join(' ');
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    `<meta name="viewport" content="width=device-width, initial-scale=1">${refresh}` +
    `<title>${escapeHtml(title)} · Parley console</title>` +
    `<link rel="stylesheet" href="${escapeHtml(`${base}/style.css`)}"></head><body>` +
    `<header><strong>Parley console</strong> <nav>${nav}</nav></header>` +
    `<main><h1>${escapeHtml(title)}</h1>${body.html}</main></body></html>`
  );
}

/** The stylesheet, served at `/style.css`. */
export const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1f2328;background:#fff}
header{background:#24292f;color:#fff;padding:.6em 1em}header a{color:#cfe3ff;margin-left:1em}
main{padding:0 1em 2em}table{border-collapse:collapse;width:100%;margin:.5em 0}
th,td{border:1px solid #d0d7de;padding:.3em .5em;text-align:left;vertical-align:top;overflow-wrap:anywhere}
th{background:#f6f8fa;white-space:nowrap}tr.bad td,.bad{background:#ffebe9;color:#82071e}.verified{color:#1a7f37;font-weight:600}
.tampered{color:#cf222e;font-weight:700}tr.waiting td{background:#fff8c5}tr.done td{background:#dafbe1}
tr.running td{background:#ddf4ff}tr.failed td,tr.rejected td,tr.escalated td{background:#ffebe9}
pre{background:#f6f8fa;padding:.6em;overflow:auto}.empty{color:#57606a}.next{margin:1em 0}`;
