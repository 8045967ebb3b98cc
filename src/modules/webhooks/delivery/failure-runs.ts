import { DeliveryStatus } from "../../../contracts/index.ts";

/** What a completion says about its subscription's health (a Completion of delivery-repo.ts). */
export interface RunInput {
  delivery: { store_id: string; subscription_id: string };
  startedAt: Date;
  next: { status: DeliveryStatus };
}

/**
 * Per subscription of a batch of completions: its latest successful attempt, and the first failed
 * attempt after it (or the first of all when none succeeded). Pure; what completeMany records.
 */
export function runsOfFailures(items: readonly RunInput[]) {
  const subs = new Map<
    string,
    { store_id: string; subscription_id: string; success: Date | null; failures: Date[] }
  >();
  for (const c of items) {
    const key = `${c.delivery.store_id} ${c.delivery.subscription_id}`;
    let sub = subs.get(key);
    if (!sub) {
      sub = {
        store_id: c.delivery.store_id,
        subscription_id: c.delivery.subscription_id,
        success: null,
        failures: [],
      };
      subs.set(key, sub);
    }
    if (c.next.status === DeliveryStatus.delivered) {
      if (!sub.success || c.startedAt > sub.success) sub.success = c.startedAt;
    } else sub.failures.push(c.startedAt);
  }
  return [...subs.values()].map(({ store_id, subscription_id, success, failures }) => {
    let failure: Date | null = null;
    for (const at of failures) if ((!success || at > success) && (!failure || at < failure)) failure = at;
    return { store_id, subscription_id, success, failure };
  });
}
