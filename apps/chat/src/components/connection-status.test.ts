import type { AgentView } from "@hitl-kit/react";
import { describe, expect, it } from "vitest";
import { connectionLabel } from "./connection-status.js";

const agent = (status: AgentView["status"], pending = 0, connection: AgentView["connection"] = "open") =>
  ({
    status,
    connection,
    outbox: [],
    pending: Array.from({ length: pending }, (_, index) => ({ requestId: `req_${index}` })),
  }) as unknown as Pick<AgentView, "status" | "connection" | "outbox" | "pending">;

describe("connectionLabel", () => {
  it("says the assistant waits for the person while a running tool asks them, as for a parked turn", () => {
    expect(connectionLabel(agent("streaming"))).toBe("Live · replying");
    expect(connectionLabel(agent("streaming", 1))).toBe("Live · waiting for you");
    expect(connectionLabel(agent("waiting", 1))).toBe("Live · waiting for you");
    expect(connectionLabel(agent("idle"))).toBe("Live");
  });

  it("says the network is gone while the browser is offline, not that the chat is live", () => {
    expect(connectionLabel(agent("reconnecting", 0, "offline"))).toBe("No network · reconnects when it is back");
  });

  it("says the chat is paused, not live, while a hidden tab has given its stream back", () => {
    expect(connectionLabel(agent("waiting", 1, "paused"))).toBe("Paused while hidden");
  });
});
