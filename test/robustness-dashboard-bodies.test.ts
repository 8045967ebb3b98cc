import { API_PREFIXES, bodySweeps, robustnessSuite } from "./robustness.ts";

/** Each body field of every dashboard operation attacked in turn (test/robustness.ts, fieldAttacks). */
robustnessSuite("robustness: the dashboard's body fields under bad input", (s) =>
  bodySweeps(s, [
    ["the dashboard's store products", `${API_PREFIXES[0]}stores/{slug}/products`],
    ["the rest of the dashboard", API_PREFIXES[0], `${API_PREFIXES[0]}stores/{slug}/products`],
  ]),
);
