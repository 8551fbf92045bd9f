// Each view as HTML: tables of escaped text, links built by the console, nothing else.
import type { ChainDetailView, ChainView } from './chains.js';
import type { DecisionView, PendingView } from './confirmations.js';
import type { ListView } from './context.js';
import { a, duration, el, type Html, join, t, table, time } from './html.js';
import type { RunDetailView, RunView } from './runs.js';
import type { UnknownView } from './unknown.js';

/** Where links point: the console's base path and the current page's path. */
export interface Links {
  readonly base: string;
  readonly path: string;
}

export function pendingHtml(view: ListView<PendingView>, links: Links): Html {
  const rows = view.items.map((c) => ({
    cells: [
      t(c.sessionKey),
      t(c.requester),
      t(c.approvers),
      join([t(c.actionName), el('div', t(c.actionDigest), 'digest')]),
      join([t(c.summary), ...(c.stepPrompt === undefined ? [] : [el('div', t(c.stepPrompt))])]),
      t(c.step),
      c.deliveredAt === undefined ? t('not yet delivered') : time(c.deliveredAt),
      t(c.timeLeftMs > 0 ? duration(c.timeLeftMs) : 'expired'),
      t(c.args),
    ],
    className: 'pending',
  }));
  const headers = [
    'chat',
    'requester',
    'approvers',
    'action',
    'prompt',
    'step',
    'delivered',
    'time left',
    'arguments',
  ];
  return join([table(headers, rows, 'Nothing is waiting for a person.'), footer(view, links)]);
}

export function decisionsHtml(view: ListView<DecisionView>, links: Links): Html {
  const rows = view.items.map((d) => ({
    cells: [
      t(d.sessionKey),
      t(d.requester),
      join([t(d.actionName), el('div', t(d.actionDigest), 'digest')]),
      t(d.summary),
      t(`${d.outcome} (${d.reason})`),
      t(d.decidedBy ?? '—'),
      t(d.reply ?? '—'),
      time(d.decidedAt),
      t(d.used ? 'yes' : 'no'),
    ],
    className: d.outcome === 'confirmed' ? 'done' : 'failed',
  }));
  const headers = [
    'chat',
    'requester',
    'action',
    'prompt',
    'outcome',
    'decided by',
    'reply',
    'decided at',
    'used',
  ];
  return join([table(headers, rows, 'No settled confirmation is kept.'), footer(view, links)]);
}

export function runsHtml(view: ListView<RunView>, links: Links): Html {
  const rows = view.items.map((r) => ({
    cells: [
      a(`${links.base}/runs/${encodeURIComponent(r.runId)}`, t(r.runId)),
      t(r.name),
      t(r.status),
      time(r.createdAt),
      time(r.endedAt),
    ],
    className: r.status === 'succeeded' ? 'done' : r.status,
  }));
  return join([
    table(['run', 'pipeline', 'status', 'started', 'ended'], rows, 'No pipeline run is stored.'),
    footer(view, links),
  ]);
}

export function runHtml(view: RunDetailView): Html {
  const waiting = view.approvalsWaiting;
  const rows = view.nodes.map((n) => ({
    cells: [
      t(n.id),
      t(n.kind),
      t(n.dependsOn.join(', ') || '—'),
      t(n.status),
      t(n.attempts),
      t(n.reviseRound === undefined ? n.revisions : `${n.revisions} (revise round ${n.reviseRound})`),
      t(n.issues?.join(' · ') ?? ''),
      n.waitingUntil === undefined ? t('') : time(n.waitingUntil),
      t([n.code, n.reason].filter((x) => x !== undefined).join(': ')),
      t(n.output),
    ],
    className: n.status,
  }));
  const headers = [
    'node',
    'kind',
    'depends on',
    'state',
    'attempts',
    'revisions',
    'review issues',
    'waiting until',
    'why',
    'output',
  ];
  return join([
    el(
      'p',
      t(`${view.run.name} · ${view.run.status} · started ${new Date(view.run.createdAt).toISOString()}`),
    ),
    el(
      'p',
      t(waiting.length === 0 ? 'No approval is waiting.' : `Approvals waiting: ${waiting.join(', ')}`),
      waiting.length === 0 ? 'empty' : 'waiting',
    ),
    el('h2', t('Graph')),
    table(headers, rows, 'No node has started yet.'),
    ...(view.mermaid === undefined
      ? [
          el(
            'p',
            t('The pipeline’s definition was not given to the console (option pipelines): no graph.'),
            'empty',
          ),
        ]
      : [el('h2', t('Mermaid source')), el('pre', t(view.mermaid), 'mermaid-source')]),
    ...refusedHtml(view.refused),
  ]);
}

export function unknownHtml(view: ListView<UnknownView>, links: Links): Html {
  const rows = view.items.map((u) => ({
    cells: [t(u.key), t(u.id), t(u.owner), time(u.claimedAt), time(u.leaseEndedAt), t(u.content)],
    className: 'bad',
  }));
  const headers = ['record', 'effect', 'claimed by', 'claimed at', 'lease ended', 'content'];
  return join([
    el(
      'p',
      t(
        'Claims whose lease ended without a result: the effect may or may not have run, and is never re-run. A person decides.',
      ),
    ),
    table(headers, rows, 'No unknown outcome.'),
    footer(view, links),
  ]);
}

export function chainsHtml(view: ListView<ChainView>, links: Links): Html {
  const rows = view.items.map((c) => ({
    cells: [
      a(`${links.base}/ledger/${encodeURIComponent(c.sessionKey)}`, t(c.session)),
      t(c.entries),
      verdict(c.verification),
    ],
    className: c.verification.ok ? 'done' : 'bad',
  }));
  return join([
    table(['session', 'entries', 'verification'], rows, 'No consent chain is stored.'),
    footer(view, links),
  ]);
}

export function chainHtml(view: ChainDetailView, links: Links): Html {
  const rows = view.entries.map((e) => ({
    cells: [t(e.line), t(e.seq ?? '—'), time(e.at), t(e.kind), t(e.confirmationId ?? '—'), t(e.detail)],
    ...(e.bad ? { className: 'bad' } : {}),
  }));
  return join([
    el('p', verdict(view.verification)),
    table(['line', 'seq', 'at', 'kind', 'confirmation', 'facts'], rows, 'The chain is empty.'),
    footer(view, links),
  ]);
}

function verdict(v: ChainView['verification']): Html {
  if (v.ok) return el('span', t(`verified: ${v.entries} entries intact`), 'verified');
  const where = `line ${v.line}${v.seq === undefined ? '' : `, seq ${v.seq}`}`;
  return el('span', t(`TAMPERED (${v.code}) at ${where}: ${v.message}`), 'tampered');
}

function refusedHtml(refused: ListView<unknown>['refused']): Html[] {
  if (refused.length === 0) return [];
  const rows = refused.map((r) => ({ cells: [t(r.key), t(r.message)], className: 'bad' }));
  return [el('h2', t('Records that cannot be read')), table(['record', 'why'], rows, '')];
}

function footer(
  view: { readonly next?: string; readonly refused?: ListView<unknown>['refused'] },
  links: Links,
): Html {
  const next =
    view.next === undefined
      ? []
      : [
          el(
            'p',
            a(`${links.base}${links.path}?after=${encodeURIComponent(view.next)}`, t('Next page →')),
            'next',
          ),
        ];
  return join([...refusedHtml(view.refused ?? []), ...next]);
}
