/**
 * A read-only operator's view in the browser: confirmations waiting for a person and settled ones,
 * pipeline runs with their live graph, unknown outcomes, and the consent ledger per session with
 * its verification — served from the same `Store` the gates, runners and ledgers write, with a
 * strict Content-Security-Policy, escaped and bounded text, redaction by default and paged listings.
 *
 * @packageDocumentation
 * @module @parley/console
 */
export { createConsole } from './console.js';
export type { ConsoleHandler } from './console.js';
export type { ConsoleRequest, ConsoleResponse } from './http.js';
export { startConsole } from './start.js';
export type { RunningConsole, StartConsoleOptions } from './start.js';
export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, MAX_TEXT_LENGTH } from './options.js';
export type { ConsoleOptions } from './options.js';
export { ConsoleError, CONSOLE_ERROR_CODES, CONSOLE_REFUSAL_CODES } from './errors.js';
export type { ConsoleErrorCode, ConsoleRefusalCode } from './errors.js';
