// The team: who the teammates are and how each one behaves. Teammates are scripted (no model): the
// point of the example is the protocol between them and the lead, not what they think.

/** How a teammate answers a shutdown request. */
export type ShutdownBehaviour =
  /** Finishes up, approves and exits. */
  | { readonly kind: 'approve'; readonly reason: string }
  /** Refuses while busy (until `busyForMs` after the team starts), then approves like `approve`. */
  | {
      readonly kind: 'busy';
      readonly busyForMs: number;
      readonly busyReason: string;
      readonly doneReason: string;
    }
  /** Never answers: stuck, crashed or ignoring its inbox. */
  | { readonly kind: 'silent' };

export interface TeammateScript {
  readonly name: string;
  readonly role: string;
  readonly task: string;
  /** How long it takes to answer or to write a plan, in ms on the clock. */
  readonly thinkMs: number;
  readonly shutdown: ShutdownBehaviour;
  /** Plans it submits for approval, in order: the next one after each rejection (the revision). */
  readonly plans?: readonly string[];
  /** Its link to the lead is slow: every message it sends arrives this much later. */
  readonly linkDelayMs?: number;
}

export const RISKY_PLAN =
  'Refactor the auth module in one go: rewrite session handling, drop the legacy_tokens table, deploy straight to prod.';
export const REVISED_PLAN =
  'Refactor the auth module in 3 stages behind the auth_v2 flag: (1) new session code + tests, (2) dual-write tokens, (3) drop legacy_tokens after a week. Rollback = turn the flag off.';

export const TEAM: readonly TeammateScript[] = [
  {
    name: 'alice',
    role: 'coder',
    task: 'implement the export endpoint',
    thinkMs: 2_000,
    shutdown: { kind: 'approve', reason: 'all files saved, tests green; exiting' },
  },
  {
    name: 'bob',
    role: 'refactorer',
    task: 'refactor the auth module',
    thinkMs: 2_000,
    shutdown: { kind: 'approve', reason: 'stage committed; exiting' },
    plans: [RISKY_PLAN, REVISED_PLAN],
  },
  {
    name: 'carol',
    role: 'migrator',
    task: 'migrate the orders table',
    thinkMs: 3_000,
    shutdown: {
      kind: 'busy',
      busyForMs: 10 * 60_000,
      busyReason: 'busy: migrating orders (batch 3 of 5) and config.json is half written',
      doneReason: 'migration finished and config.json written; exiting',
    },
  },
  {
    name: 'dave',
    role: 'tester',
    task: 'run the nightly end-to-end suite',
    thinkMs: 2_000,
    shutdown: { kind: 'silent' },
  },
  {
    name: 'erin',
    role: 'writer',
    task: 'update the API docs',
    thinkMs: 2_000,
    shutdown: { kind: 'approve', reason: 'docs pushed; exiting' },
    linkDelayMs: 45_000,
  },
];

/** Charlie, who only appears in the lead-model run: he submits a careful plan as soon as he starts. */
export const CHARLIE: TeammateScript = {
  name: 'charlie',
  role: 'coder',
  task: 'add rate limiting to the public API',
  thinkMs: 2_000,
  shutdown: { kind: 'approve', reason: 'rate limiter merged; exiting' },
  plans: [
    'Add rate limiting to the public API behind the rl_v1 flag, with tests; rollback = turn the flag off.',
  ],
};

/** Who the lead's model can spawn by name in the lead-model run (the try-it prompts' names). */
export const RECRUITS: readonly TeammateScript[] = [
  ...TEAM.filter((script) => script.name === 'alice' || script.name === 'bob'),
  CHARLIE,
];
