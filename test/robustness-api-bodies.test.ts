import { API_PREFIXES, bodySweeps, robustnessSuite } from "./robustness.ts";

/**
 * Each body field of every Admin API, developer API and other operation attacked in turn
 * (test/robustness.ts, fieldAttacks).
 */
robustnessSuite("robustness: the APIs' body fields under bad input", (s) =>
  bodySweeps(s, [
    ["the Admin API's products", `${API_PREFIXES[1]}products`],
    ["the rest of the Admin API", API_PREFIXES[1], `${API_PREFIXES[1]}products`],
    ["the developer API", API_PREFIXES[2]],
    ["every other operation", null],
  ]),
);
