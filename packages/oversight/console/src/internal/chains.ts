// The consent ledger per session: each stored chain read unchecked (readStoredChain) and verified
// (verifyLedger), so a tampered chain shows its first bad entry instead of failing to load.
import type { JsonValue } from '@parley/core';
import { readStoredChain, type StoredChain, verifyLedger } from '@parley/ledger';
import { listPage } from './confirmations.js';
import { hidden, type ListView, text, type ViewContext } from './context.js';

/** A chain's verdict: intact (with its head), or its first bad entry. */
export type Verification =
  | { readonly ok: true; readonly entries: number; readonly headSeq?: number }
  | {
      readonly ok: false;
      readonly code: string;
      readonly line: number;
      readonly seq?: number;
      readonly message: string;
    };

/** A session's chain as the ledger list shows it. */
export interface ChainView {
  readonly session: string;
  /** The session as stored (the cursor of its page), for links. */
  readonly sessionKey: string;
  readonly entries: number;
  readonly verification: Verification;
}

/** One entry of a chain, as its page shows it. */
export interface EntryView {
  readonly line: number;
  readonly seq?: number;
  readonly at?: number;
  readonly kind: string;
  readonly confirmationId?: string;
  readonly detail: string;
  /** The first bad entry of a tampered chain. */
  readonly bad: boolean;
}

/** A chain with its entries (one page of them) and its verdict. */
export interface ChainDetailView {
  readonly ok: true;
  readonly session: string;
  readonly verification: Verification;
  readonly entries: readonly EntryView[];
  /** The line after which the next page of entries starts (`?after=`), absent on the last page. */
  readonly next?: string;
}

/** One page of the ledger's chains, by session. */
export async function chainPage(ctx: ViewContext, after: string | undefined): Promise<ListView<ChainView>> {
  return listPage(ctx, ctx.ledgerPrefix, after, (entry) => {
    const chain = readStoredChain(entry.value);
    if (chain === undefined) return 'not a consent chain of this format';
    const session = entry.key.slice(ctx.ledgerPrefix.length);
    return {
      session: text(ctx, session),
      sessionKey: session,
      entries: chain.lines.length,
      verification: verify(ctx, chain),
    };
  });
}

/** A session's chain, one page of its entries; `undefined` when no chain is stored for it. */
export async function chainDetail(
  ctx: ViewContext,
  session: string,
  after: number,
): Promise<ChainDetailView | { readonly ok: false; readonly message: string } | undefined> {
  const value = await ctx.store.get(`${ctx.ledgerPrefix}${session}`);
  if (value === undefined) return undefined;
  const chain = readStoredChain(value);
  if (chain === undefined) return { ok: false, message: 'not a consent chain of this format' };
  const verification = verify(ctx, chain);
  const badLine = verification.ok ? undefined : verification.line;
  const lines = chain.lines.slice(after, after + ctx.pageSize);
  const entries = lines.map((line, index) => entryView(ctx, line, after + index + 1, badLine));
  const end = after + lines.length;
  return {
    ok: true,
    session: text(ctx, session),
    verification,
    entries,
    next: end < chain.lines.length ? String(end) : undefined,
  };
}

function verify(ctx: ViewContext, chain: StoredChain): Verification {
  const result = verifyLedger(chain.lines, {
    anchor: chain.anchor,
    publicKeys: ctx.publicKeys,
  });
  if (result.ok)
    return {
      ok: true,
      entries: result.entries,
      headSeq: result.head?.seq,
    };
  const { code, line, seq, message } = result;
  return { ok: false, code, line, seq: seq, message: text(ctx, message) };
}

function entryView(ctx: ViewContext, line: string, number: number, badLine: number | undefined): EntryView {
  const entry = objectOf(JSON.parse(line) as JsonValue);
  const body = objectOf(entry.body);
  const seq = entry.seq;
  const at = entry.at;
  const id = body.confirmationId;
  return {
    line: number,
    seq: typeof seq === 'number' ? seq : undefined,
    at: typeof at === 'number' ? at : undefined,
    kind: text(ctx, typeof body.kind === 'string' ? body.kind : 'unreadable'),
    confirmationId: typeof id === 'string' ? text(ctx, id) : undefined,
    detail: text(ctx, detailOf(ctx, body)),
    bad: number === badLine,
  };
}

/** The facts of an entry's body a person reads, in one line (redacted values as their digest). */
function detailOf(ctx: ViewContext, body: Readonly<Record<string, JsonValue>>): string {
  return Object.entries(body)
    .filter(([key]) => key !== 'kind' && key !== 'confirmationId')
    .map(([key, value]) => {
      // an effect's detail may carry what the tool returned: an output
      if (key === 'detail' && !ctx.reveal.outputs) return `${key}: ${hidden('the effect’s detail', value)}`;
      return `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`;
    })
    .join(' · ');
}

function objectOf(value: JsonValue | undefined): Readonly<Record<string, JsonValue>> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return value as Readonly<Record<string, JsonValue>>; // an object, checked above
}
