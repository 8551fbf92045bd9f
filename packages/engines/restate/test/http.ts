// The tests' HTTP client is the one the /testing entry uses to reach the server's admin API and ingress.
export { type HttpAnswer, http } from '../src/internal/http.js';
