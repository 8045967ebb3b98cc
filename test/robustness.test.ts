import { generalSweeps, robustnessSuite } from "./robustness.ts";

/**
 * Every documented operation under bad input (test/robustness.ts): missing and forged credentials,
 * hostile path ids and another tenant's, bad query and header parameters, malformed and oversized
 * bodies, what Node's HTTP parser refuses and malformed URLs. Never a 500, always the envelope.
 * The body fields' sweeps are robustness-*-bodies.test.ts.
 */
robustnessSuite("robustness: every documented operation under bad input", generalSweeps);
