import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EVENT, ORDER_STATUS_NAMES, ORDER_STATUSES, OrderStatus } from "../../contracts/index.ts";
import { eventName, orderMovesInWords } from "./event-docs.ts";

describe("event documentation from the contract", () => {
  it("quotes an event's name", () => {
    assert.equal(eventName(EVENT.productCreated), "`product.created`");
  });

  it("states every order move and the event of every status a move reaches", () => {
    const words = orderMovesInWords();
    for (const from of ORDER_STATUS_NAMES) {
      const next = ORDER_STATUSES[from].next;
      if (next.length === 0) assert.match(words, new RegExp(`\`${from}\`[^.]* (is|are) final`));
      else
        assert.ok(
          words.includes(
            `rom \`${from}\`: ${next.map((s) => `\`${s}\``).join(next.length > 2 ? ", " : " or ")}`,
          ),
          from,
        );
      if (from !== OrderStatus.pending)
        assert.ok(words.includes(eventName(ORDER_STATUSES[from].event)), from);
    }
    // pending is where an order starts, not a move: its event is the creation's.
    assert.ok(!words.includes(eventName(ORDER_STATUSES.pending.event)));
  });
});
