/**
 * A WebSocket endpoint for a loopback stand-in (`@parley/testing/loopback`), for platforms whose
 * events arrive over a socket. Node-only, and it needs the `ws` package (an optional peer):
 * import it from `@parley/testing/loopback-ws`.
 *
 * @packageDocumentation
 * @module @parley/testing/loopback-ws
 */
export { startLoopbackSocket } from './loopback/socket.js';
export type { LoopbackSocket, LoopbackSocketOptions, LoopbackUpgrade } from './loopback/socket.js';
