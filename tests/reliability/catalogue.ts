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
] as const satisfies readonly CatalogueCase[];

/** An id from the catalogue. */
export type CaseId = (typeof CATALOGUE)[number]['id'];

/** Prefixes a test name with the catalogue ids it proves: `cite('JSON-01')` → `[JSON-01]`. */
export function cite(...ids: readonly CaseId[]): string {
  return ids.map((id) => `[${id}]`).join('');
}
