import { erasableRecordOf, eraseRecord } from "../../contracts/index.ts";

/**
 * For a stored answer whose `data` is a customer or an order (the 201 of a create of either): the
 * customer it belongs to, and the same answer with that customer's personal data erased by the
 * contract's rule (contracts/erasure.ts), which a replay answers once the customer is erased.
 * Null for any other answer. Only `data` changes, in place: the envelope and its key order stay.
 */
export function erasedAnswer(body: string): { customerId: string; body: string } | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return null;
  const data = (parsed as { data?: unknown }).data;
  const record = erasableRecordOf(data);
  if (!record) return null;
  return {
    customerId: record.customerId,
    body: JSON.stringify({ ...parsed, data: eraseRecord(record.kind, data, record.id) }),
  };
}
