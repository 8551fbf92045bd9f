/**
 * The reliability catalogue: every adversarial case Parley promises to handle, with an id, the
 * input or fault, and the expected behaviour. Each id is cited by at least one test (a test name
 * containing `[ID]`, via `cite()`); `traceability.test.ts` fails when one is not.
 */
export interface CatalogueCase {
  readonly id: string;
  readonly area:
    | 'json'
    | 'parsing'
    | 'routing'
    | 'lifecycle'
    | 'ids'
    | 'envelope'
    | 'tools'
    | 'retries'
    | 'restarts';
  readonly input: string;
  readonly expected: string;
}

export const CATALOGUE = [
  // Untrusted JSON (rule 6)
  {
    id: 'JSON-01',
    area: 'json',
    input: 'a document over maxBytes (50 MB)',
    expected: 'json_too_large before JSON.parse runs',
  },
  {
    id: 'JSON-02',
    area: 'json',
    input: 'arrays nested 10^6 deep',
    expected: 'json_too_deep, no stack overflow',
  },
  {
    id: 'JSON-03',
    area: 'json',
    input: '__proto__ key at every depth from 1 to 50',
    expected: 'json_forbidden_key with its path; Object.prototype untouched',
  },
  { id: 'JSON-04', area: 'json', input: 'constructor / prototype keys', expected: 'json_forbidden_key' },
  {
    id: 'JSON-05',
    area: 'json',
    input: 'an object with 10^5 keys',
    expected: 'json_too_many_nodes under the default limit',
  },
  {
    id: 'JSON-06',
    area: 'json',
    input: 'arbitrary JSON text (fc.json)',
    expected: 'never throws; accepted exactly when a reference predicate accepts',
  },
  {
    id: 'JSON-07',
    area: 'json',
    input: 'arbitrary strings, including invalid JSON and lone surrogates',
    expected: 'never throws; json_syntax or a value',
  },
  {
    id: 'JSON-08',
    area: 'json',
    input: 'multi-byte text around the byte cap',
    expected: 'the cap counts UTF-8 bytes exactly',
  },
  // Ids
  {
    id: 'IDS-01',
    area: 'ids',
    input: '100k generated ids',
    expected: 'no collision, URL-safe alphabet, 21 characters',
  },
  // Timeouts (rule 5)
  {
    id: 'LIFE-01',
    area: 'lifecycle',
    input: 'timeoutMs NaN, Infinity, 0, negative, 2^31',
    expected: 'invalid_timeout at registration',
  },
  {
    id: 'LIFE-02',
    area: 'lifecycle',
    input: 'many deadlines on one queue, removed in random order',
    expected: 'one timer at most; none left when empty; each callback at most once',
  },
  // ── Part B: settlement, models, races, soak, crash (rules 3, 5, 9) ──
  {
    id: 'SETTLE-01',
    area: 'lifecycle',
    input: 'random machines driven by random events and clock advances',
    expected: 'only declared edges are taken; a final state absorbs every later event (machine_done)',
  },
  {
    id: 'SETTLE-02',
    area: 'restarts',
    input: 'a machine snapshot taken at a random point, JSON round-tripped and restored',
    expected: 'the restored actor behaves exactly like the original from then on, deadlines included',
  },
  {
    id: 'SETTLE-03',
    area: 'lifecycle',
    input:
      'correlated requests under replies, duplicates, late, unknown and wrong-sender replies, aborts, cancels, timeouts',
    expected: 'one transition out of pending per request; later events refused and counted, never thrown',
  },
  {
    id: 'MODEL-01',
    area: 'restarts',
    input:
      'command sequences against the correlator and a reference model, restart on the same store mid-way',
    expected:
      'same states, results and refusal codes as the model; each request settles once across instances',
  },
  {
    id: 'MODEL-02',
    area: 'restarts',
    input: 'command sequences against the confirmation gate and a reference model, restart mid-way',
    expected: 'same decisions as the model; a reply in a pending session is never forwarded to the agent',
  },
  {
    id: 'RACE-01',
    area: 'lifecycle',
    input: 'reply vs timeout vs abort vs duplicate vs restore, in every scheduler order',
    expected: 'exactly one winner; every loser refused or a no-op; nothing left pending',
  },
  {
    id: 'RACE-02',
    area: 'lifecycle',
    input: 'a confirmation reply vs its timeout vs its abort vs a card click, in every scheduler order',
    expected: 'one decision recorded and authorised at most once',
  },
  {
    id: 'SOAK-01',
    area: 'lifecycle',
    input:
      '200k correlated requests (5M full) with 10% timeouts, late, duplicate, unknown and cancelled replies',
    expected: 'each settles once; no pending entry, timer or abort listener left; heap back near baseline',
  },
  {
    id: 'VOCAB-01',
    area: 'parsing',
    input:
      'vocabulary words decorated (case, full width, format characters, edge punctuation), extended, or arbitrary',
    expected: 'a verdict only for an exact normalised word; caps and vocabulary errors at their exact bounds',
  },
  {
    id: 'CRASH-01',
    area: 'restarts',
    input: 'SIGKILL of a confirmation flow on Redis before prompt, after prompt, after reply',
    expected: 'no lost gate: a pending gate is resumed or expired with a notice, never forwarded as chat',
  },
  {
    id: 'CRASH-02',
    area: 'restarts',
    input: 'SIGKILL mid-execution of a confirmed action',
    expected:
      'marked outcome-unknown after restart and never re-run; no execution without a recorded approval',
  },
] as const satisfies readonly CatalogueCase[];

/** An id from the catalogue. */
export type CaseId = (typeof CATALOGUE)[number]['id'];

/** Prefixes a test name with the catalogue ids it proves: `cite('JSON-01')` → `[JSON-01]`. */
export function cite(...ids: readonly CaseId[]): string {
  return ids.map((id) => `[${id}]`).join('');
}
