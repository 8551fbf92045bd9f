// The scripted sessions: what the user types, what the platform answers, which credentials the
// vault holds (expiry relative to the start), and which faults are injected.
import type { PlatformStep } from '@parley/testing';

export interface Scenario {
  readonly name: string;
  readonly title: string;
  readonly replies: readonly string[];
  /** The platform adapter's answers, in call order (an export is a call too). */
  readonly platform: readonly PlatformStep[];
  readonly credentials: Readonly<
    Record<
      string,
      { readonly expiresInMs: number; readonly scopes: readonly string[]; readonly revoked?: boolean }
    >
  >;
  /**
   * The store's `set` fails this many times from this reply on (session records are written with
   * compareAndSet, so at close it is the audit summary's save that fails).
   */
  readonly storeFault?: { readonly beforeReply: number; readonly times: number };
  /** The host process restarts before this reply (0-based) and resumes from the store. */
  readonly restartBefore?: number;
  /** After the last reply: the host restarts (when told), then this much time passes. */
  readonly afterClose?: { readonly restart: boolean; readonly waitMs: number };
}

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const YES3 = ['YES', 'YES', 'YES'] as const;

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'happy-path',
    title: 'Happy path: DMCA takedown of reposts on X, export first, Telegram notice, audit export',
    replies: [
      'DMCA takedown: remove the infringing reposts of my photos on X',
      'x https://twitter.com/Reposter/status/1790001?utm_source=share https://x.com/reposter/status/1790001/ x:1790002',
      'oauth vault://cleanup/x/alice-report-2026 — I consent to this scope',
      '#1 ev1 This repost copies my original harbour photo without a license. ' +
        '#2 ev2 This post copies my sunset photo from my portfolio without a license. I confirm this is authentic.',
      ...YES3,
      'ask: yes, export first',
      'proceed',
      'telegram',
      'yes, export the audit and remind me in 7 days',
    ],
    platform: ['success', 'success'],
    credentials: {
      'vault://cleanup/x/alice-report-2026': { expiresInMs: 45 * MINUTE, scopes: ['report:write'] },
    },
    // The reminder is due in 7 days: the host restarts meanwhile, re-arms it and sends it when due.
    afterClose: { restart: true, waitMs: 7 * DAY },
  },
  {
    name: 'unhappy-inputs',
    title:
      'A vague goal, an unresolved target, an expired credential, missing evidence, a target without its own justification and a mismatched YES',
    replies: [
      'delete stuff',
      'delete my old reddit posts that show my home address',
      'reddit https://www.reddit.com/r/pics/comments/abc123/my_house/ reddit:t3_def456 my-old-blog',
      'oauth vault://cleanup/reddit/bob-2025, I consent',
      'vault://cleanup/reddit/bob-2026',
      'They show my house.',
      '#1 ev3 This post shows the street view of my house next to my name. I confirm this is authentic.',
      '#2 ev4 This post repeats my home address under my full name.',
      'YES',
      'yes',
      '#1 ev3 This post shows the street view of my house next to my name. ' +
        '#2 ev4 This post repeats my home address under my full name. I confirm this is authentic.',
      'YES',
      'ＹＥＳ',
      ' YES ',
      'no',
      'proceed',
      'carrier pigeon',
      'no thanks',
    ],
    platform: ['success'],
    credentials: {
      'vault://cleanup/reddit/bob-2025': { expiresInMs: -2 * 60 * MINUTE, scopes: ['content:delete'] },
      'vault://cleanup/reddit/bob-2026': { expiresInMs: 50 * MINUTE, scopes: ['content:delete'] },
    },
  },
  {
    name: 'partial-execution',
    title:
      'Partial execution: one target rate-limited twice, then the manual path; the host restarts mid-flow',
    replies: [
      'delete my old posts on X that mention my former employer',
      'x x:1111 x:2222 https://x.com/carol/status/3333',
      'token vault://cleanup/x/carol-delete, I consent',
      '#1 ev10 My own post that names my former employer. #2 ev11 My own reply that names my former employer. ' +
        '#3 ev12 My own thread that names my former employer in full. I confirm this is authentic.',
      ...YES3,
      'yes',
      'proceed',
      'retry',
      'manual',
      'email',
      'yes please, audit export, no reminder',
    ],
    platform: [
      'success',
      {
        outcome: 'partial',
        failTargets: ['x:2222'],
        error: { code: 'rate_limited', message: 'Too many requests', retryable: true },
      },
      { outcome: 'failed', error: { code: 'rate_limited', message: 'Too many requests', retryable: true } },
    ],
    credentials: {
      'vault://cleanup/x/carol-delete': { expiresInMs: 30 * MINUTE, scopes: ['content:delete'] },
    },
    restartBefore: 8,
  },
  {
    name: 'close-pending',
    title: 'The audit save fails twice: close_pending, then a retried save succeeds',
    replies: [
      'complaint: report the page that publishes my phone number and address',
      'web https://Example.org/people/dana#contact',
      'none, I consent',
      'ev20 The page lists my private phone number and home address without consent. I confirm this is authentic.',
      ...YES3,
      'no',
      'proceed',
      'none',
      'yes, export the audit',
    ],
    platform: ['success'],
    credentials: {},
    storeFault: { beforeReply: 10, times: 2 },
  },
];
