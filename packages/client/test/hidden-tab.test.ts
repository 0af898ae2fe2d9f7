import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { everyEventType } from "../../protocol/test/fixtures.js";
import { type AgentClientOptions, createAgentClient, replayTransport, type Transport } from "../src/index.js";
import { fakePage } from "./fake-page.js";
import { closedAfterEach, startAgentServer, textOf, waitFor } from "./helpers.js";

const running = closedAfterEach();

const page = fakePage();
afterEach(() => {
  vi.useRealTimers();
});

function setVisibility(visibilityState: "hidden" | "visible") {
  page.document.visibilityState = visibilityState;
  page.document.dispatchEvent(new Event("visibilitychange"));
}
const hide = () => setVisibility("hidden");
const show = () => setVisibility("visible");

/**
 * A recorded session parked on `r_1` (seq 12), replayed; `streams` lists each stream the
 * client opened, with the seq it resumed after and whether it is still open.
 */
function recordedSession() {
  const replay = replayTransport(everyEventType, { playedTo: 12 });
  const streams: { after: number; open: boolean }[] = [];
  const transport: Transport = {
    ...replay,
    openStream(sessionId, options) {
      const stream = { after: options.lastSeq(), open: true };
      streams.push(stream);
      const close = replay.openStream(sessionId, options);
      return () => {
        stream.open = false;
        close();
      };
    },
  };
  const open = () => streams.filter((stream) => stream.open).length;
  return { replay, transport, streams, open };
}

/** A client of the recorded session, followed, with its snapshot applied and its stream open. */
async function follow(transport: Transport, options: Pick<AgentClientOptions, "hiddenStreamMs"> = {}) {
  const client = running.add(createAgentClient({ transport, sessionId: "s_1", ...options }));
  client.subscribe(() => {});
  await client.ready;
  return client;
}

describe("a hidden tab", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });

  it("gives its stream back after a minute hidden, and resumes from the last event when shown again", async () => {
    const { replay, transport, streams, open } = recordedSession();
    const client = await follow(transport);
    expect(client.getSnapshot()).toMatchObject({ connection: "open", status: "waiting", lastSeq: 12 });

    hide();
    await vi.advanceTimersByTimeAsync(59_999);
    expect(open()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(open()).toBe(0);
    // What the tab showed stays, and says it is paused rather than live.
    expect(client.getSnapshot()).toMatchObject({ connection: "paused", status: "waiting", lastSeq: 12 });

    replay.stepTo(17); // answered and finished in another tab meanwhile
    expect(client.getSnapshot().lastSeq).toBe(12);

    show();
    expect(streams.map((stream) => stream.after)).toEqual([12, 12]);
    const caught = client.getSnapshot();
    expect(caught).toMatchObject({ connection: "open", status: "idle", lastSeq: 17 });
    expect(caught.requests.r_1?.status).toBe("resolved");
    expect(textOf(caught)).toBe("Pick a template.");
  });

  it("keeps its stream when shown again within the minute", async () => {
    const { transport, open } = recordedSession();
    const client = await follow(transport);
    const shown: string[] = [];
    client.subscribe((state) => shown.push(state.connection));
    hide();
    await vi.advanceTimersByTimeAsync(45_000);
    show();
    hide();
    await vi.advanceTimersByTimeAsync(45_000); // a fresh minute from the second hide
    show();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(shown).not.toContain("paused");
    expect(open()).toBe(1);
    expect(client.getSnapshot().connection).toBe("open");
  });

  it("waits hiddenStreamMs, or keeps its stream open however long with false", async () => {
    const short = recordedSession();
    const quick = await follow(short.transport, { hiddenStreamMs: 5_000 });
    const kept = recordedSession();
    const keeping = await follow(kept.transport, { hiddenStreamMs: false });
    hide();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(quick.getSnapshot().connection).toBe("paused");
    expect(short.open()).toBe(0);
    await vi.advanceTimersByTimeAsync(3_600_000);
    expect(keeping.getSnapshot().connection).toBe("open");
    expect(kept.open()).toBe(1);
  });

  it("reopens at once when the person answers from the hidden page, and gives it back again a minute later", async () => {
    const { replay, transport, streams, open } = recordedSession();
    const client = await follow(transport);
    hide();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(client.getSnapshot().connection).toBe("paused");

    const answered = client.respond("r_1", { templateId: "b" }); // from a notification, say
    expect(open()).toBe(1);
    expect(await answered).toMatchObject({ ok: true });
    replay.stepTo(13);
    expect(client.getSnapshot()).toMatchObject({ connection: "open", lastSeq: 13 });
    expect(client.getSnapshot().requests.r_1?.status).toBe("resolved");
    expect(streams.map((stream) => stream.after)).toEqual([12, 12]);

    await vi.advanceTimersByTimeAsync(60_000);
    expect(open()).toBe(0);
    expect(client.getSnapshot().connection).toBe("paused");
  });

  it("reopens at once when the person sends from the hidden page, before the message goes", async () => {
    const { transport, open } = recordedSession();
    const openWhenSent: number[] = [];
    const client = await follow({
      ...transport,
      send(sessionId, command, options) {
        openWhenSent.push(open());
        return transport.send(sessionId, command, options);
      },
    });
    hide();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(open()).toBe(0);
    expect(await client.send("one more")).toMatchObject({ ok: true });
    expect(openWhenSent).toEqual([1]);
    expect(client.getSnapshot().connection).toBe("open");
  });

  it("reopens at once when the person stops the reply from the hidden page, so Stop can see it end", async () => {
    const { transport, open } = recordedSession();
    const client = await follow(transport);
    hide();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(open()).toBe(0);
    await client.cancelTurn();
    expect(open()).toBe(1);
    expect(client.getSnapshot().connection).toBe("open");
  });

  it("gives back the stream of a tab opened in the background a minute after it started", async () => {
    const { transport, open } = recordedSession();
    page.document.visibilityState = "hidden";
    const client = await follow(transport);
    expect(open()).toBe(1);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(open()).toBe(0);
    expect(client.getSnapshot().connection).toBe("paused");
    show();
    expect(open()).toBe(1);
  });

  it("stays paused when the network comes and goes while hidden", async () => {
    const { transport, open } = recordedSession();
    const client = await follow(transport);
    hide();
    await vi.advanceTimersByTimeAsync(60_000);
    page.window.dispatchEvent(new Event("online"));
    page.window.dispatchEvent(new Event("offline"));
    expect(open()).toBe(0);
    expect(client.getSnapshot().connection).toBe("paused");
    expect(client.getSnapshot().status).toBe("waiting");
  });

  it("forgets the page once nobody listens: no timer reopens or closes anything", async () => {
    const { transport, open } = recordedSession();
    const client = running.add(createAgentClient({ transport, sessionId: "s_1" }));
    const leave = client.subscribe(() => {});
    await client.ready;
    hide();
    leave();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(client.getSnapshot().connection).toBe("idle");
    show();
    expect(open()).toBe(0);
  });
});

describe("a hidden tab against the server", () => {
  it("misses nothing and repeats nothing that happened while its stream was given back", async () => {
    const server = running.add(await startAgentServer([{ text: "written while hidden" }]));
    const { sessionId } = await server.runtime.createSession({ owner: "tester" });
    const lastEventIds: (string | null)[] = [];
    const fetch = (input: string, init?: RequestInit) => {
      if (input.endsWith("/events")) lastEventIds.push(new Headers(init?.headers).get("last-event-id"));
      return server.fetch(input, init);
    };
    const client = running.add(createAgentClient({ url: server.url, fetch, sessionId, hiddenStreamMs: 20 }));
    client.subscribe(() => {});
    const seen = (await waitFor(client, (s) => s.connection === "open")).lastSeq;

    hide();
    await waitFor(client, (s) => s.connection === "paused");
    await server.runtime.sendMessage(sessionId, "hello");
    await server.runtime.idle();
    expect(client.getSnapshot().lastSeq).toBe(seen);

    show();
    const caught = await waitFor(client, (s) => s.status === "idle" && textOf(s) === "written while hidden");
    expect(caught.connection).toBe("open");
    expect(caught.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(lastEventIds).toEqual([String(seen), String(seen)]);
  });
});
