// Telling the gate's own answers from promises of them, on every call.

/**
 * Whether an answer the gate made (a settled call, a checked argument list, a confirmation, or
 * none) is a promise of it: `instanceof Promise`, asked only when the value has a `then` method. Its own
 * answers have none, and an `instanceof` the optimiser cannot answer from the value's shape walks
 * the prototype chain each time. Not for values a host gives (an executor's result, a policy's
 * verdict): reading their `then` could run a getter.
 */
export function isPromise<T>(answer: T | Promise<T>): answer is Promise<T> {
  return typeof (answer as { then?: unknown } | undefined)?.then === 'function' && answer instanceof Promise;
}
