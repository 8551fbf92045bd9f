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
  // ── Part A: reply parsing (rule 1) ──
  {
    id: 'PARSE-01',
    area: 'parsing',
    input: 'a labelled corpus of ≥ 300 Chinese and English replies (replies.corpus.ts)',
    expected: 'parseReply gives each reply its labelled verdict',
  },
  {
    id: 'PARSE-02',
    area: 'parsing',
    input: 'questions: 确认？, yes?, ok?!, ¿yes?, 确认吗',
    expected: 'never confirm (unrecognised)',
  },
  {
    id: 'PARSE-03',
    area: 'parsing',
    input: "negations: 不确认, 别执行, not yes, don't confirm",
    expected: 'never confirm',
  },
  {
    id: 'PARSE-04',
    area: 'parsing',
    input: 'qualifiers and conditions: yes please, 确认吧, yes if it is safe, 备份后确认',
    expected: 'never confirm',
  },
  {
    id: 'PARSE-05',
    area: 'parsing',
    input: 'mixed answers: 确认取消, yes/no, ok cancel',
    expected: 'never confirm and never cancel',
  },
  {
    id: 'PARSE-06',
    area: 'parsing',
    input: 'a confirm word with any letter swapped for a Cyrillic / Greek / small-capital look-alike',
    expected: 'never confirms',
  },
  {
    id: 'PARSE-07',
    area: 'parsing',
    input:
      'format characters (zero-width, bidi, soft hyphen, variation selectors) inserted anywhere, within the raw cap',
    expected: 'the verdict does not change',
  },
  {
    id: 'PARSE-08',
    area: 'parsing',
    input: 'surrounding whitespace (ASCII, no-break, ideographic)',
    expected: 'the verdict does not change',
  },
  {
    id: 'PARSE-09',
    area: 'parsing',
    input: 'one trailing 。 . ! ！ added to a reply that has none',
    expected: 'the verdict does not change; a second one, or ? , ~ 」, makes it unrecognised',
  },
  {
    id: 'PARSE-10',
    area: 'parsing',
    input: 'any further word appended to a confirm word',
    expected: 'not a confirm unless the result is itself a vocabulary word',
  },
  {
    id: 'PARSE-11',
    area: 'parsing',
    input: 'NFC / NFD / NFKC / NFKD forms of the same reply',
    expected: 'the same verdict',
  },
  {
    id: 'PARSE-12',
    area: 'parsing',
    input: 'a reply longer than the raw cap (4 × MAX_REPLY_LENGTH), however it normalises',
    expected: 'never confirms',
  },
  {
    id: 'PARSE-13',
    area: 'parsing',
    input: 'multi-step exact answers with case, punctuation or look-alike changes',
    expected: 'step_mismatch: only the exact text counts',
  },
  // ── Part A: routing and gate binding (rules 2, 4, 8) ──
  {
    id: 'ROUTE-01',
    area: 'routing',
    input: 'the right answer from the requester in another chat',
    expected: "does not count; passes to that chat's agent",
  },
  {
    id: 'ROUTE-02',
    area: 'routing',
    input: 'the right answer from another member of the chat (requester policy)',
    expected: 'ignored not_allowed; passes to the agent; the gate stays pending',
  },
  {
    id: 'ROUTE-03',
    area: 'routing',
    input: 'the right answer from the requester in another thread of the same chat',
    expected: 'does not count',
  },
  {
    id: 'ROUTE-04',
    area: 'routing',
    input: "the bot's own message (fromSelf) with the confirm word",
    expected: 'never counts',
  },
  {
    id: 'ROUTE-05',
    area: 'routing',
    input: "another bot's message (senderIsBot) with the confirm word, also under approvers any",
    expected: 'never counts',
  },
  {
    id: 'ROUTE-06',
    area: 'routing',
    input: 'an edit of an earlier message into the confirm word',
    expected: 'never counts',
  },
  {
    id: 'ROUTE-07',
    area: 'routing',
    input: 'a recall event carrying the confirm word',
    expected: 'never counts',
  },
  {
    id: 'ROUTE-08',
    area: 'routing',
    input: "an answer that reached the bot before the prompt's send began",
    expected: 'does not count (goes to the agent when nothing is pending yet)',
  },
  {
    id: 'ROUTE-09',
    area: 'routing',
    input: 'a redelivered platform event (same event id) during a 3-step exact confirmation',
    expected: 'counts once: never advances two steps',
  },
  {
    id: 'ROUTE-10',
    area: 'routing',
    input: "a second message of one batch, arriving before the next step's prompt was sent",
    expected: 'counts for one step at most (the second does not count)',
  },
  {
    id: 'ROUTE-11',
    area: 'routing',
    input: 'a card click for a confirmation already settled',
    expected: 'refused settled; no second decision',
  },
  {
    id: 'ROUTE-12',
    area: 'routing',
    input: 'a card click for an unknown id, or a malformed / forged / re-signed token',
    expected: 'refused unknown_confirmation or forged; nothing settles',
  },
  {
    id: 'ROUTE-13',
    area: 'routing',
    input: 'a card click from another chat, another user or a bot',
    expected: 'refused session_mismatch / not_allowed',
  },
  {
    id: 'ROUTE-14',
    area: 'routing',
    input: 'everything an agent can reach: gate methods, outbound messages, made-up decisions',
    expected: 'nothing resolves a pending gate; only a human inbound message or card click does',
  },
  {
    id: 'ROUTE-15',
    area: 'routing',
    input: 'authorize with another action, twice, or with a decision object made up by code',
    expected: 'action_mismatch / already_used / unknown_decision',
  },
  {
    id: 'ROUTE-16',
    area: 'routing',
    input: 'the answer after the absolute deadline',
    expected: 'timed_out at the deadline; the late answer is not counted',
  },
  {
    id: 'ROUTE-17',
    area: 'routing',
    input: 'an approver list: the requester and outsiders answer, then a listed approver',
    expected: 'only the listed approver decides',
  },
  {
    id: 'ROUTE-18',
    area: 'routing',
    input: 'bus hygiene: own echoes, bots, edits, recalls, redelivered event ids',
    expected: 'dropped before any interceptor or the agent sees them',
  },
  // ── Part A: lifecycle, timeouts (rules 3, 5) ──
  {
    id: 'LIFE-03',
    area: 'lifecycle',
    input: 'confirm: timeoutMs / standingAllowanceMs / auditTtlMs NaN, ±Infinity, 0, < 0, ≥ 2^31',
    expected: 'invalid_timeout at gate creation or request, nothing prompted',
  },
  {
    id: 'LIFE-04',
    area: 'lifecycle',
    input: 'correlate: timeoutMs / humanTimeoutMs / maxTotalMs insane in options, protocol or request',
    expected: 'invalid_timeout at registration, nothing sent',
  },
  {
    id: 'LIFE-05',
    area: 'lifecycle',
    input: 'fsm: an `after` delay insane',
    expected: 'refused by defineMachine',
  },
  {
    id: 'LIFE-06',
    area: 'lifecycle',
    input: 'tools: confirmTimeoutMs insane',
    expected: 'refused when the batch is registered, before any call is judged or run',
  },
  {
    id: 'LIFE-07',
    area: 'lifecycle',
    input: 'bus hygiene maxAgeMs, store ttlMs: NaN, Infinity, ≤ 0',
    expected: 'refused at creation / set',
  },
  {
    id: 'LIFE-08',
    area: 'lifecycle',
    input: 'a reply, a card click, an abort and the timeout of one confirmation at the same instant',
    expected: 'one decision; the losers are ignored or refused, never thrown; nothing left pending',
  },
  {
    id: 'LIFE-09',
    area: 'lifecycle',
    input: 'gate close() with confirmations pending and queued',
    expected: 'every waiter settles aborted/closed once; no timer, no abort listener left',
  },
  // ── Part A: envelopes (rule 6) ──
  {
    id: 'ENV-01',
    area: 'envelope',
    input: 'arbitrary JSON text (fc.json) decoded as an envelope',
    expected: 'never throws; accepted only when a reference predicate accepts',
  },
  {
    id: 'ENV-02',
    area: 'envelope',
    input: 'serialised fc.anything values',
    expected: 'never throws; agrees with the reference',
  },
  {
    id: 'ENV-03',
    area: 'envelope',
    input: 'a payload nested 10^6 deep',
    expected: 'json_too_deep, no stack overflow',
  },
  { id: 'ENV-04', area: 'envelope', input: 'a 50 MB envelope', expected: 'json_too_large before parsing' },
  {
    id: 'ENV-05',
    area: 'envelope',
    input: '__proto__ / constructor / prototype at every depth of the payload and at the top',
    expected: 'json_forbidden_key; Object.prototype untouched',
  },
  { id: 'ENV-06', area: 'envelope', input: 'a payload with 10^5 keys', expected: 'json_too_many_nodes' },
  {
    id: 'ENV-07',
    area: 'envelope',
    input: 'arbitrary strings, lone surrogates, arbitrary field values',
    expected: 'never throws',
  },
  {
    id: 'ENV-08',
    area: 'envelope',
    input: 'fuzzed frames (wrong types, unknown keys, unknown intents, hostile payloads)',
    expected: 'accepted only when the reference accepts; the result has a plain prototype',
  },
  {
    id: 'ENV-09',
    area: 'envelope',
    input: 'frames with unknown keys, wrong types, out-of-range numbers',
    expected: 'invalid_envelope',
  },
  // ── Part A: tools (rule 7) ──
  {
    id: 'TOOL-01',
    area: 'tools',
    input: 'tool names __proto__, constructor, toString, hasOwnProperty, valueOf',
    expected: 'unknown_tool; nothing runs',
  },
  {
    id: 'TOOL-02',
    area: 'tools',
    input: 'case, width, zero-width and look-alike variants of a registered name',
    expected: 'unknown_tool: names match exactly',
  },
  {
    id: 'TOOL-03',
    area: 'tools',
    input: 'the same call id proposed again in the same turn',
    expected: 'replayed when the content is the same, call_id_reused otherwise; the side effect ran once',
  },
  {
    id: 'TOOL-04',
    area: 'retries',
    input: 'an executor that throws, then the retry loop proposes the same call id',
    expected: 'executor_error recorded once and replayed; not re-run',
  },
  {
    id: 'TOOL-05',
    area: 'tools',
    input: 'concurrent batches carrying the same call id',
    expected: 'the side effect runs once',
  },
  {
    id: 'TOOL-06',
    area: 'tools',
    input: 'random batches of repeated ids over turns (property)',
    expected: 'each (turn, call id) runs at most once',
  },
  {
    id: 'TOOL-07',
    area: 'tools',
    input: 'a destructive tool, the model\'s own "确认" and a decision for another action',
    expected: "confirmation_declined / nothing runs without the person's exact consent",
  },
  {
    id: 'TOOL-08',
    area: 'restarts',
    input:
      'a pending confirmation restored for an action named like an Object.prototype member (toString, constructor)',
    expected: 'no inherited function is taken for a resume handler: expired with a notice',
  },
  // ── Part A: restarts (rule 9) ──
  {
    id: 'RESTART-01',
    area: 'restarts',
    input: 'a gate restarted with a confirmation pending and no resume handler; the answer arrives',
    expected: 'aborted/expired with a notice; the answer is consumed, never forwarded to the agent',
  },
  {
    id: 'RESTART-02',
    area: 'restarts',
    input: 'a decision authorised (execution started), then a restart',
    expected: 'authorize refuses already_used: the action is never re-run automatically',
  },
  {
    id: 'RESTART-03',
    area: 'restarts',
    input: 'a gate restarted after the persisted absolute deadline passed',
    expected: 'timed_out from the persisted deadline, not a fresh timeout',
  },
  // ── Issue 19 §2: a tool call is its id and its content (principles 8, 9) ──
  {
    id: 'CALLID-01',
    area: 'tools',
    input: "a call id reused in the same turn for another tool (hp_delta's call_001 sent again as a move)",
    expected: 'call_id_reused in tool_feedback; the move does not run, the old result is not replayed',
  },
  {
    id: 'CALLID-02',
    area: 'tools',
    input:
      'a reused id with other canonical arguments (another value, -0 for 0, an own __proto__ key), or the same ones in another key order',
    expected: 'call_id_reused for other content; replayed for the same content whatever the key order',
  },
  {
    id: 'CALLID-03',
    area: 'restarts',
    input: 'a reused id after a restart on the same store, or after a snapshot restore',
    expected: 'call_id_reused for other content, replayed for the same; nothing runs again',
  },
  {
    id: 'CALLID-04',
    area: 'tools',
    input: 'random batches of (turn, id, content) proposals, with concurrent deliveries (property)',
    expected:
      'each (turn, id) runs once with its first content; a later proposal is replayed iff its content is the same',
  },
  {
    id: 'CALLID-05',
    area: 'tools',
    input: 'a batch over maxBatchCalls, a huge id or call, a full memory, turns arriving in descending order',
    expected:
      'too_many_calls / invalid_call / memory_full / stale_turn; remembered calls and turns never pass their caps',
  },
  {
    id: 'CALLID-06',
    area: 'tools',
    input:
      'a policy, confirm function, confirm predicate, summary, executor, repair or message hook that throws or rejects',
    expected:
      'contained: the call fails closed with its code and an error event; process resolves, nothing unhandled',
  },
  {
    id: 'CALLID-07',
    area: 'restarts',
    input: "a store record for the call that is another id's, another turn's or malformed",
    expected: 'outcome_unknown with an error event; never replayed as this call, never run',
  },
  {
    id: 'CALLID-08',
    area: 'retries',
    input: 'the same batch delivered twice, at once or after a restart',
    expected: 'each call runs once; the second delivery is replayed',
  },
  {
    id: 'CALLID-09',
    area: 'retries',
    input: 'an effect already applied this turn proposed again under a fresh id in a later batch',
    expected: 'recognised (sameContentAs); replayed or refused already_applied when the host asks',
  },
  {
    id: 'CALLID-10',
    area: 'tools',
    input:
      "a destructive call whose schema adds defaults, a confirm function that edits the arguments, keys in the model's order",
    expected:
      'the decision binds the validated arguments that run, exactly; the summary is the tool name and canonical JSON',
  },
  // ── Issue 19: distinct store keys, checked TTLs (STORE) ──
  {
    id: 'STORE-1',
    area: 'ids',
    input:
      "compare-and-set on 'call_\\ud800' then on 'call_\\udbff' (lone surrogates), memory and Redis stores",
    expected: 'both win: two keys, two values (Redis used to merge them into one U+FFFD key)',
  },
  {
    id: 'STORE-2',
    area: 'ids',
    input: 'look-alike keys: lone and paired surrogates, U+FFFD, %, %25, %uD800, NUL, %00, glob characters',
    expected: 'every key is its own record through set, get, compare-and-set and delete',
  },
  {
    id: 'STORE-3',
    area: 'ids',
    input: 'list with a lone-surrogate, %, glob or half-emoji prefix',
    expected: 'exactly the keys starting with that prefix, under their own names',
  },
  {
    id: 'STORE-4',
    area: 'ids',
    input: 'watch a lone-surrogate prefix; set, delete and Redis expiry of look-alike keys',
    expected: 'changes reported under the original key; none for keys of the look-alike',
  },
  {
    id: 'STORE-5',
    area: 'lifecycle',
    input: 'ttlMs 1e16, 1e300, MAX_TTL_MS + 1, Infinity, -1 or a string on set and compare-and-set',
    expected: 'invalid_timeout before anything is written, in every store; the previous value kept',
  },
  {
    id: 'STORE-6',
    area: 'lifecycle',
    input: 'ttlMs = MAX_TTL_MS (ten years)',
    expected: 'written, readable with its expiresAt, listed',
  },
  {
    id: 'STORE-7',
    area: 'restarts',
    input: 'Redis records written before key encoding under a name holding %, an emoji or a stray %uXXXX',
    expected: 'not read under another key; list skips them with a corrupt event; plain keys read as before',
  },
  {
    id: 'STORE-8',
    area: 'json',
    input: "'\\ud800确' repeated (lone surrogates before 3-byte characters); JSON limits set to NaN",
    expected: 'json_too_large at the true UTF-8 size; a NaN limit refuses every document instead of none',
  },
  {
    id: 'STORE-9',
    area: 'lifecycle',
    input: 'a deadline at NaN ahead of a valid one; a manual clock with maxTimersPerRun NaN or now NaN',
    expected: 'the NaN deadline runs at once and the next one on time; the clock options are refused',
  },
  // ── Issue 19: bounded replies and refusals (BOUND) ──
  {
    id: 'BOUND-1',
    area: 'envelope',
    input: 'a 100 KB envelope with 45 000 wrong-typed numbers',
    expected:
      'invalid_payload with a missing_fields reply under 40 KiB (was 3.77 MB) that decodes; omitted counts 44 950',
  },
  {
    id: 'BOUND-2',
    area: 'envelope',
    input: 'exactly maxIssues issues, one more, and more missing fields than maxMissingFields',
    expected:
      'all listed with no marker at the limit; beyond it a last issue "and N more …" and payload.omitted',
  },
  {
    id: 'BOUND-3',
    area: 'envelope',
    input: 'payload keys of 100 000 characters, emoji at the cut, 3-byte characters in every issue',
    expected:
      'paths and messages cut to 256 characters without halving a surrogate pair; the 32 KiB budget stops the list',
  },
  {
    id: 'BOUND-4',
    area: 'envelope',
    input: 'any failure list or payload (property test, lone surrogates, long texts, up to 40 000 repeats)',
    expected: 'every reply the codec builds decodes under DEFAULT_ENVELOPE_LIMITS',
  },
  {
    id: 'BOUND-5',
    area: 'envelope',
    input: '40 000 unknown frame fields and one 300 000-character key',
    expected: 'invalid_envelope with 50 issues, omitted counting the rest, a message naming 10',
  },
  {
    id: 'BOUND-6',
    area: 'envelope',
    input: 'an unknown artifact name of 500 000 characters; a forbidden key under a 300 000-character key',
    expected: 'unknown_artifact / json_forbidden_key with the name and path cut to 256 characters',
  },
  {
    id: 'BOUND-7',
    area: 'envelope',
    input: 'topology.check and spawn with ids of 1 000 000 characters',
    expected: 'unknown_agent with message and details cut',
  },
  {
    id: 'BOUND-8',
    area: 'envelope',
    input:
      'refusing 1× against 8× input: wrong-typed numbers, unknown frame fields, unknown keys, record values',
    expected: 'linear: time per unit of parse+schema work stays flat; issue reads grow at most 8×',
  },
  // Exact consent in @parley/confirm (issue 18)
  {
    id: 'CONSENT-01',
    area: 'routing',
    input: "a queued request's prompt unsent; the requester's two 确认 of one polling batch",
    expected:
      'only the first request is confirmed; the second 确认 is consumed, not counted (before_delivery)',
  },
  {
    id: 'CONSENT-02',
    area: 'routing',
    input: "a 确认 while the prompt's pending record is still being written (slow store)",
    expected: 'consumed, not counted (before_delivery); a reply after delivery decides',
  },
  {
    id: 'CONSENT-03',
    area: 'routing',
    input: 'whenPending supersede: a 确认 typed while reading the superseded prompt',
    expected: 'not counted for the successor, whose prompt was not delivered when it was written',
  },
  {
    id: 'CONSENT-04',
    area: 'routing',
    input: 'three exact YES sent back to back for a three-step confirmation',
    expected: 'only step 1 counts; steps 2 and 3 need replies written after their prompts were delivered',
  },
  {
    id: 'CONSENT-05',
    area: 'lifecycle',
    input: 'a prompt send that hangs, and a step prompt whose send fails',
    expected: 'unanswerable while in flight; timed_out at the deadline; aborted / prompt_failed on failure',
  },
  {
    id: 'CONSENT-06',
    area: 'routing',
    input: 'whole-second createdAt (Telegram): reply stamped in the same second as the delivery',
    expected: 'not counted (a stamp is the start of its second); a reply stamped a later second counts',
  },
  {
    id: 'CONSENT-07',
    area: 'restarts',
    input: 'timeout 150 ms, gate down 300 ms, a 确认 delivered while the new gate loads',
    expected: 'timed_out from the stored deadline; the resume handler gets timed_out; authorize refuses',
  },
  {
    id: 'CONSENT-08',
    area: 'restarts',
    input: 'a card click on a gate over a store without watch, 10 min after a 1 min deadline',
    expected: 'timed_out, never confirmed',
  },
  {
    id: 'CONSENT-09',
    area: 'lifecycle',
    input: 'a messages.timedOut template that throws',
    expected: 'error event; settles timed_out with the default notice; a later 确认 confirms nothing',
  },
  {
    id: 'CONSENT-10',
    area: 'lifecycle',
    input: 'prompt / reprompt templates that throw or return no text',
    expected: 'error event; aborted / prompt_failed; no unhandled rejection, nothing left pending',
  },
  {
    id: 'CONSENT-11',
    area: 'routing',
    input: "a summary of 640 characters of padding before 'DROP TABLE orders'",
    expected:
      "name + digest shown; visible '… N more characters'; every argument key shown in canonical order",
  },
  {
    id: 'CONSENT-12',
    area: 'ids',
    input: 'authorize with own __proto__ args for a decision on {to, amount}',
    expected: 'action_mismatch at any depth',
  },
  {
    id: 'CONSENT-13',
    area: 'ids',
    input: 'two different argument values (prototype keys, -0, key order, NFC/NFD keys, null vs {})',
    expected: 'different digests (property test); key order alone gives the same digest',
  },
  {
    id: 'CONSENT-14',
    area: 'routing',
    input: "bob's 'always' under approvers [bob], then a request by dave under approvers [carol]",
    expected: "prompted, not confirmed by bob's allowance",
  },
  {
    id: 'CONSENT-15',
    area: 'routing',
    input: 'a second 确认 and a redelivered event id right after a decision',
    expected: 'absorbed (after_decision / stale_reply), not handed to the agent; other chat flows',
  },
  {
    id: 'CONSENT-16',
    area: 'restarts',
    input: 'the pending-record delete fails at settlement, then a restart',
    expected:
      'the record is not restored (its decision exists) and is removed; the resume handler does not run again',
  },
  {
    id: 'CONSENT-17',
    area: 'restarts',
    input: 'stored records without approvers, with approvers as a string, with a step past its steps',
    expected: "corrupt_record error event; ignored for deciding; the chat's messages flow",
  },
  {
    id: 'CONSENT-18',
    area: 'lifecycle',
    input: 'more requests than maxPending across chats',
    expected: 'refused / too_many_pending, not recorded',
  },
  {
    id: 'CONSENT-19',
    area: 'ids',
    input: 'a 64 KB event id counted as an answer, then redelivered',
    expected: 'remembered as its digest (≤ 128 chars); still consumed once',
  },
  {
    id: 'CONSENT-20',
    area: 'routing',
    input: 'a slow, reordering, redelivering channel with restarts (model test)',
    expected:
      'no confirmation is ever confirmed by a reply created before its prompt was delivered or after its deadline',
  },
  {
    id: 'CONSENT-21',
    area: 'routing',
    input:
      "a reply held on a replica while the owner's prompt is in flight, then the owner settles it (abort, failed send, a duplicate reply that counted there)",
    expected:
      'the held reply is released, consumed (after_decision) and not counted; it used to hang the adapter forever (redis soak)',
  },
  // ── @parley/postgres (issue 25) ──
  {
    id: 'PG-01',
    area: 'lifecycle',
    input: 'two pools (two processes) on one database compare-and-set the same pending confirmation at once',
    expected: "exactly one wins; the loser gets ok: false with the winner's version; one stored decision",
  },
  {
    id: 'PG-02',
    area: 'restarts',
    input: 'PostgreSQL stopped as a crash would and restarted mid-run, with a pending record and a watcher',
    expected:
      'the record survives; calls fail connection_lost (sent: false) meanwhile; the watcher resyncs (reconnected)',
  },
  {
    id: 'PG-03',
    area: 'restarts',
    input: 'a compare-and-set in flight when the server dies',
    expected:
      'connection_lost with sent: true, and the write did not commit (never a silent double settlement)',
  },
  {
    id: 'PG-04',
    area: 'retries',
    input: 'a write the server cancels (statement_timeout while another session holds the row lock)',
    expected: 'statement_timeout; nothing written',
  },
  {
    id: 'PG-05',
    area: 'retries',
    input: 'a write refused with a serialization failure under serializable isolation',
    expected:
      'run again (the statement rolled back whole) and settled once; serialization_failure once the retries are spent, nothing written',
  },
  {
    id: 'PG-06',
    area: 'restarts',
    input: 'the migration run again, from several pools at once, or over a table of another format',
    expected:
      'idempotent and race-free, rows kept; another format refused with unsupported_format and left untouched',
  },
  {
    id: 'PG-07',
    area: 'lifecycle',
    input: 'list by prefix on a table of 20 000 keys',
    expected: 'EXPLAIN shows the primary key index range, never a Seq Scan (PostgreSQL and PGlite)',
  },
  {
    id: 'PG-08',
    area: 'lifecycle',
    input: '100 000 pending records with TTLs, expired and swept in four rounds',
    expected:
      'absent on read before any sweep; every sweep ≤ sweepLimit; no rows left and no growth after the first reuse',
  },
  // ── Issue 19 §3: effects applied at most once across conflict retries ──
  {
    id: 'EFFECT-01',
    area: 'retries',
    input:
      'attempt 1 runs hp_delta -5 (call_A) and has move (call_B) refused; attempt 2 re-sends hp_delta -5 as call_C',
    expected:
      'call_C is recognised as call_A and not run: HP 20 → 15; the retry feedback lists call_A in already_applied',
  },
  {
    id: 'EFFECT-02',
    area: 'retries',
    input: 'attempt 2 reuses call_1 (an hp_delta before) for a move to the garden and narrates the walk',
    expected: 'refused as call_id_reused, nothing of the attempt runs, the narrative is not accepted',
  },
  {
    id: 'EFFECT-03',
    area: 'retries',
    input: 'two separate "you lose 5 HP" claims and one hp_delta(-5)',
    expected: 'claims and effects matched one to one: one claim is a conflict',
  },
  {
    id: 'EFFECT-04',
    area: 'parsing',
    input:
      "narratives of 10–80 KB: a run of claims with no clause break (findClaims), many HP and move claims against many calls (the reference game's detectors)",
    expected: 'detector work grows linearly (8× input → < 16× work); claim text clipped in evidence',
  },
  {
    id: 'EFFECT-05',
    area: 'restarts',
    input: 'a review pipeline restarted after 3 revise rounds; the reviewer says revise again',
    expected: 'the count lives with the task in the Store: revise_limit at once, no 4th round',
  },
  {
    id: 'EFFECT-06',
    area: 'retries',
    input:
      'random attempt sequences with fresh call ids, refusals and reused ids (model-based, against a reference log)',
    expected:
      'no effect applied more often than one attempt proposed it; no accepted narrative the log does not back',
  },
  // ── Issue 19 §1: every settlement decided at its own time (SETTLE) ──
  {
    id: 'SETTLE-04',
    area: 'restarts',
    input:
      'a request whose deadline passed while no instance ran; restore(), then an approving reply before the timer',
    expected: 'late / the request expires: handler and store record say expired, never approved',
  },
  {
    id: 'SETTLE-05',
    area: 'restarts',
    input:
      'an overdue request found in the store by an instance that never called restore() (reply, waitFor)',
    expected: 'late / expired on adoption: the reply is refused, waitFor rejects with timeout',
  },
  {
    id: 'SETTLE-06',
    area: 'lifecycle',
    input:
      'a reply, progress note, cancel or answer 15 s past the deadline while the timer has not run (lagging loop)',
    expected:
      'late (requester) or not_pending (responder): the request expires first, nothing else settles it',
  },
  {
    id: 'SETTLE-07',
    area: 'parsing',
    input: 'a response with no boolean approve field ({ go: false }, null) under the default decide',
    expected: 'rejected with reason no_verdict, never approved',
  },
  {
    id: 'SETTLE-08',
    area: 'lifecycle',
    input: 'a handle() handler whose promise rejects',
    expected: 'error event handler_failed; the settlement stands; no unhandled rejection',
  },
  {
    id: 'SETTLE-09',
    area: 'parsing',
    input: 'a user schema that throws (a zod transform) in an async check by receive or codec.decodeAsync',
    expected: 'malformed (receive) / invalid_payload (decodeAsync) as data; nothing rejects',
  },
  {
    id: 'SETTLE-10',
    area: 'lifecycle',
    input: 'ten concurrent requests with an async payload schema and maxPending 2',
    expected: 'two pending, eight too_many_pending: the place is reserved before the await',
  },
  {
    id: 'SETTLE-11',
    area: 'lifecycle',
    input: 'one AbortSignal shared by 50 requests and 50 waits',
    expected:
      'one abort listener, removed with the last; no MaxListenersExceededWarning; all cancelled on abort',
  },
  {
    id: 'SETTLE-12',
    area: 'ids',
    input: 'two requests pending at once; the caller needs the id of each',
    expected: 'request() returns the id on its promise; no search of list()',
  },
  {
    id: 'SETTLE-13',
    area: 'lifecycle',
    input: 'an fsm guard or assign that throws, on send, transition or when a timeout fires from its timer',
    expected: 'callback_failed refusal, state unchanged, the timeout spent; nothing escapes the timer',
  },
  {
    id: 'SETTLE-14',
    area: 'lifecycle',
    input: '50 bus receives waiting on one AbortSignal',
    expected:
      'one abort listener, removed with the last; no MaxListenersExceededWarning; all cancelled on abort',
  },
  {
    id: 'SETTLE-15',
    area: 'lifecycle',
    input: 'bus.close() while an adapter is still connecting',
    expected:
      'attach rejects with closed and the adapter is disconnected; nothing stays attached to a closed bus',
  },
  {
    id: 'SETTLE-16',
    area: 'restarts',
    input:
      'a stored request record with another id than its key, another requester, times out of order or a settledAt that does not fit its state',
    expected:
      'not restored or adopted; a reply to it is unknown_request; error event store_failed; the record is left as it is',
  },
] as const satisfies readonly CatalogueCase[];

/** An id from the catalogue. */
export type CaseId = (typeof CATALOGUE)[number]['id'];

/** Prefixes a test name with the catalogue ids it proves: `cite('JSON-01')` → `[JSON-01]`. */
export function cite(...ids: readonly CaseId[]): string {
  return ids.map((id) => `[${id}]`).join('');
}
