import { API_PREFIXES, bodySweeps, robustnessSuite } from "./robustness.ts";

/** Each body field of every dashboard operation attacked in turn (test/robustness.ts, fieldAttacks). */
robustnessSuite("robustness: the dashboard's body fields under bad input", (s) =>
  bodySweeps(s, [["the dashboard", API_PREFIXES[0]]]),
);
