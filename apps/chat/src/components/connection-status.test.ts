import type { AgentView } from "@hitl-kit/react";
import { describe, expect, it } from "vitest";
import { connectionLabel } from "./connection-status.js";

const agent = (status: AgentView["status"], connection: AgentView["connection"] = "open") =>
  ({ status, connection, outbox: [] }) as Pick<AgentView, "status" | "connection" | "outbox">;

describe("connectionLabel", () => {
  it("says whether the assistant replies or waits for the person", () => {
    expect(connectionLabel(agent("streaming"))).toBe("Live · replying");
    expect(connectionLabel(agent("waiting"))).toBe("Live · waiting for you");
    expect(connectionLabel(agent("idle"))).toBe("Live");
  });

  it("says the network is gone while the browser is offline, not that the chat is live", () => {
    expect(connectionLabel(agent("reconnecting", "offline"))).toBe("No network · reconnects when it is back");
  });

  it("says the chat is paused, not live, while a hidden tab has given its stream back", () => {
    expect(connectionLabel(agent("waiting", "paused"))).toBe("Paused while hidden");
  });
});
