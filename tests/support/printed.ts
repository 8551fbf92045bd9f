// The `log(...)` + `expectPrinted('...')` harness of every package's test/examples.test.ts: an
// example's `console.log(x); // y` becomes `log(x); expectPrinted('y');`. Importing this module
// registers, in the importing test file, the resets of what was printed before and after each test
// (vitest isolates modules per test file, so each file has its own `logs`).
import { formatWithOptions } from 'node:util';
import { afterEach, beforeEach, expect } from 'vitest';

let logs: string[] = [];
let everyLineChecked = false;

/** Records one printed line, formatted as `console.log` formats its arguments. */
export function log(...args: unknown[]): void {
  logs.push(formatWithOptions({}, ...args));
}

/** Asserts that `text` was printed by this test, and consumes that one line. */
export function expectPrinted(text: string): void {
  expect(logs).toContain(text);
  logs.splice(logs.indexOf(text), 1);
}

/** Every line printed by this test and not yet checked, in order; they count as checked from here. */
export function takePrinted(): string[] {
  const taken = logs;
  logs = [];
  return taken;
}

/** Makes each test of the calling file fail when it printed a line no `expectPrinted` checked. */
export function expectEveryPrintedLineChecked(): void {
  everyLineChecked = true;
}

beforeEach(() => {
  logs = [];
});
afterEach(() => {
  if (everyLineChecked) expect(logs).toEqual([]); // every line printed was checked
  logs = [];
});
