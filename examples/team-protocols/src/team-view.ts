// The `/team` status view, plain text: every teammate as the lead sees it, every request the lead
// sent or received with its request_id and state, and the replies that were refused.
import type { CorrelatorStats, TrackedRequest } from '@parley/correlate';
import { clockTime } from '@parley/testing';

export interface TeamViewInput {
  readonly now: number;
  readonly members: readonly { readonly name: string; role: string; status: string; note: string }[];
  readonly requests: readonly TrackedRequest[];
  readonly stats: CorrelatorStats;
}

const STATES = ['pending', 'approved', 'rejected', 'expired', 'cancelled'] as const;

export function renderTeamView(input: TeamViewInput): string {
  const requests = [...input.requests].sort(
    (a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id, 'en', { numeric: true }),
  );
  const count = (state: string): number => requests.filter((r) => r.state === state).length;
  const states = STATES.map((state) => `${count(state)} ${state}`).join(' · ');
  const refused = Object.entries(input.stats.refused)
    .map(([code, n]) => `${code} ${n}`)
    .join(' · ');
  return [
    `/team at ${clockTime(input.now)} — lead + ${input.members.length} teammates`,
    table(
      ['name', 'role', 'status', 'note'],
      input.members.map((m) => [m.name, m.role, m.status.replace('_', ' '), cut(m.note, 72)]),
    ),
    '',
    `requests (${requests.length}): ${states}`,
    table(
      ['request_id', 'protocol', 'from', 'to', 'state', 'sent', 'settled', 'asked', 'answer'],
      requests.map((r) => [
        r.id,
        r.protocol,
        r.from,
        r.to,
        r.state,
        clockTime(r.createdAt),
        r.settledAt === undefined ? '—' : clockTime(r.settledAt),
        cut(asked(r), 34),
        cut(r.reason ?? '', 34),
      ]),
    ),
    '',
    `refused replies: ${refused === '' ? 'none' : refused}`,
  ].join('\n');
}

/** What the request asked: the plan, or the shutdown's reason (both passed the protocol's schema). */
function asked(request: TrackedRequest): string {
  const payload = request.payload as { readonly plan?: string; readonly reason?: string };
  return (request.protocol === 'plan_approval' ? payload.plan : payload.reason) ?? '';
}

function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    `  ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ')}`.trimEnd();
  return [line(head), ...rows.map(line)].join('\n');
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
