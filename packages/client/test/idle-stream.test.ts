import { describe, expect, it } from "vitest";
import { openEventStream } from "../src/open-event-stream.js";

/** A stream the server ends after `heartbeatAfterMs` of silence broken by one heartbeat: an idle stream a token's expiry ends. */
const idleStream = (heartbeatAfterMs: number) =>
  new Response(
    new ReadableStream<Uint8Array>({
      async start(controller) {
        await new Promise((resolve) => setTimeout(resolve, heartbeatAfterMs));
        controller.enqueue(new TextEncoder().encode(": ping\n\n"));
        controller.close();
      },
    }),
  );

/** Opens a stream whose every connection is `connection()`, and says how it failed, if it did, after `connects` connections. */
async function run(connection: () => Response, connects: number) {
  let opened = 0;
  let failure: string | undefined;
  const close = openEventStream(
    async () => {
      opened += 1;
      return connection();
    },
    {
      sessionId: "s",
      lastSeq: () => 0,
      maxRetries: 2,
      backoff: { initialDelayMs: 1, maxDelayMs: 1, jitter: 0 },
      sink: {
        event: () => {},
        events: () => {},
        connection: () => {},
        fail: (error) => {
          failure = error.message;
        },
      },
    },
  );
  try {
    await expect.poll(() => failure !== undefined || opened > connects, { timeout: 15_000 }).toBe(true);
  } finally {
    close();
  }
  return { opened, failure };
}

describe("a stream that drops", () => {
  it("resets its backoff after an idle stream that lived (a heartbeat past its first second), however often it ends", async () => {
    // Each connection lives 1.2 s, heard from once, then ends: four of them in a row is not a failure.
    const idle = await run(() => idleStream(1_200), 4);
    expect(idle.failure).toBeUndefined();
    expect(idle.opened).toBeGreaterThan(4);
  });

  it("still counts a stream that ends at once, heartbeat or not, and fails after maxRetries", async () => {
    const dropped = await run(() => idleStream(0), 10);
    expect(dropped.failure).toMatch(/dropped 3 times in a row/);
    expect(dropped.opened).toBe(3);
  });
});
