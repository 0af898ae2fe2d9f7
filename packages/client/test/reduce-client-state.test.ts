import { emptySnapshot, type ProtocolEvent, reduceSession } from "@hitl-kit/protocol";
import { describe, expect, it } from "vitest";
import { everyEventType } from "../../protocol/test/fixtures.js";
import { type ClientAction, type ClientState, initialClientState, reduceClientState } from "../src/index.js";

const fold = (state: ClientState, actions: ClientAction[]) => actions.reduce(reduceClientState, state);
const asEvents = (events: ProtocolEvent[]): ClientAction[] => events.map((event) => ({ type: "event", event }));
const upTo = (seq: number) => everyEventType.filter((event) => event.seq <= seq);
const hydrated = () => fold(initialClientState("s_1"), [{ type: "snapshot.loaded", snapshot: emptySnapshot("s_1") }]);
const eventAt = (seq: number) => everyEventType.find((event) => event.seq === seq)!;

describe("reduceClientState over a recorded stream", () => {
  it("folds messages, lastSeq and the turn error exactly as the protocol's reduceSession does", () => {
    const state = fold(hydrated(), asEvents(everyEventType));
    const protocol = everyEventType.reduce(reduceSession, emptySnapshot("s_1"));
    expect(state.messages).toEqual(protocol.messages);
    expect(state.lastSeq).toBe(24);
    expect(state.session).toEqual(protocol);
  });

  it("keeps every settled request, with how it was resolved", () => {
    const state = fold(hydrated(), asEvents(everyEventType));
    expect(state.pending).toEqual([]);
    expect(state.requests.r_1).toMatchObject({
      status: "resolved",
      resolution: { action: "accept", value: { templateId: "b" } },
    });
  });

  it("changes nothing when an applied seq is replayed", () => {
    const state = fold(hydrated(), asEvents(everyEventType));
    for (const event of everyEventType) expect(reduceClientState(state, { type: "event", event })).toBe(state);
  });

  it("keeps the identity of untouched messages, requests and the pending list on a text delta", () => {
    const before = fold(hydrated(), asEvents(upTo(12)));
    const delta: ProtocolEvent = { ...eventAt(9), seq: 13, type: "text.delta", messageId: "m_1", delta: " Now." };
    const after = reduceClientState(before, { type: "event", event: delta });
    expect(after).not.toBe(before);
    expect(after.messages[0]).toBe(before.messages[0]);
    expect(after.messages[1]).not.toBe(before.messages[1]);
    expect(after.requests).toBe(before.requests);
    expect(after.pending).toBe(before.pending);
  });

  it("keeps the identity of other requests when one is settled", () => {
    const second = {
      ...(eventAt(11) as Extract<ProtocolEvent, { type: "input.requested" }>).requests[0]!,
      requestId: "r_2",
    };
    const parked = fold(hydrated(), [
      ...asEvents(upTo(11)),
      {
        type: "event",
        event: { ...eventAt(11), seq: 12, type: "input.requested", requests: [second] } as ProtocolEvent,
      },
    ]);
    const settled = reduceClientState(parked, { type: "event", event: { ...eventAt(13), seq: 13 } });
    expect(settled.requests.r_2).toBe(parked.requests.r_2);
    expect(settled.pending).toEqual([parked.requests.r_2]);
  });
});

describe("request state transitions", () => {
  const parked = () => fold(hydrated(), asEvents(upTo(12)));

  it("opens a request as pending when input.requested arrives", () => {
    const state = parked();
    expect(state.requests.r_1).toMatchObject({ status: "pending", request: { toolName: "pick_template" } });
    expect(state.pending.map((request) => request.request.requestId)).toEqual(["r_1"]);
    expect(state.status).toBe("waiting");
  });

  it("keeps the code of the reason the server cancelled a request for, from the stream and from a snapshot", () => {
    const cancel = {
      type: "input.resolved",
      seq: 13,
      sessionId: "s_1",
      at: "now",
      requestId: "r_1",
      toolCallId: (eventAt(13) as Extract<ProtocolEvent, { type: "input.resolved" }>).toolCallId,
      action: "cancel",
      reason: "The person stopped the turn.",
      reasonCode: "stopped",
    } as const;
    const resolution = { action: "cancel", reason: "The person stopped the turn.", reasonCode: "stopped" };
    expect(reduceClientState(parked(), { type: "event", event: cancel }).requests.r_1).toMatchObject({
      status: "cancelled",
      resolution,
    });
    const snapshot = reduceSession(parked().session, cancel);
    const loaded = fold(initialClientState("s_1"), [{ type: "snapshot.loaded", snapshot }]);
    expect(loaded.requests.r_1).toMatchObject({ status: "cancelled", resolution });
  });

  it("is waiting, not streaming, while a running turn's tool asks the person, and streaming again once answered", () => {
    // The question is open before any `turn.waiting`: the tool asked while it runs (`ctx.ask`).
    const asked = fold(hydrated(), asEvents(upTo(11)));
    expect(asked.session.status).toBe("running");
    expect(asked.status).toBe("waiting");
    const answered = reduceClientState(asked, { type: "event", event: { ...eventAt(13), seq: 12 } });
    expect(answered.status).toBe("streaming");
  });

  it("goes submitting with what was sent, then error with issues and answerable again, then resolved", () => {
    const issues = [{ path: ["templateId"], message: "Required" }];
    const sent = { action: "accept", value: { templateId: 7 } } as const;
    const submitting = reduceClientState(parked(), { type: "request.submitting", requestId: "r_1", sent });
    expect(submitting.requests.r_1).toEqual({ request: parked().requests.r_1!.request, status: "submitting", sent });
    expect(submitting.pending[0]).toBe(submitting.requests.r_1);
    const failed = reduceClientState(submitting, {
      type: "request.failed",
      requestId: "r_1",
      error: { code: "invalid_answer", message: "Does not fit.", issues },
    });
    expect(failed.requests.r_1).toMatchObject({ status: "error", error: { code: "invalid_answer", issues } });
    expect(failed.pending).toHaveLength(1);
    expect(failed.requests.r_1).not.toHaveProperty("sent");
    const declining = { action: "decline", reason: "None fits." } as const;
    const retried = reduceClientState(failed, { type: "request.submitting", requestId: "r_1", sent: declining });
    expect(retried.requests.r_1).toEqual({
      request: failed.requests.r_1!.request,
      status: "submitting",
      sent: declining,
    });
    expect(reduceClientState(retried, { type: "request.submitting", requestId: "r_1", sent })).toBe(retried);
    const resolved = fold(retried, asEvents(upTo(14)));
    expect(resolved.requests.r_1).toEqual({
      request: failed.requests.r_1!.request,
      status: "resolved",
      resolution: {
        action: "accept",
        value: (eventAt(13) as Extract<ProtocolEvent, { type: "input.resolved" }>).value,
      },
    });
    expect(resolved.pending).toEqual([]);
  });

  it("leaves a settled request settled when a late failure or submit arrives", () => {
    const resolved = fold(hydrated(), asEvents(upTo(14)));
    const error = { code: "already_resolved", message: "Resolved elsewhere." };
    expect(reduceClientState(resolved, { type: "request.failed", requestId: "r_1", error })).toBe(resolved);
    const sent = { action: "cancel" } as const;
    expect(reduceClientState(resolved, { type: "request.submitting", requestId: "r_1", sent })).toBe(resolved);
  });

  it.each([
    ["decline", "declined"],
    ["cancel", "cancelled"],
    ["expire", "expired"],
  ] as const)("settles a request resolved with %s as %s", (action, status) => {
    const event = { ...eventAt(13), action, value: undefined, reason: "no" } as ProtocolEvent;
    const state = reduceClientState(parked(), { type: "event", event });
    expect(state.requests.r_1).toEqual({
      request: parked().requests.r_1!.request,
      status,
      resolution: { action, reason: "no" },
    });
  });
});

describe("client status", () => {
  it("is connecting until the first snapshot, then follows the session", () => {
    const start = initialClientState("s_1");
    expect(start.status).toBe("connecting");
    const idle = hydrated();
    expect(idle.status).toBe("idle");
    expect(fold(idle, asEvents(upTo(9))).status).toBe("streaming");
    expect(fold(idle, asEvents(upTo(19))).status).toBe("error");
    expect(fold(idle, asEvents(upTo(19))).error).toMatchObject({ code: "model_error", source: "turn" });
    expect(fold(idle, asEvents(upTo(21))).status).toBe("idle");
  });

  it("is submitting from send until its turn starts, even when the turn starts before the 202", () => {
    const idle = fold(hydrated(), asEvents(upTo(1)));
    const sending = reduceClientState(idle, { type: "message.sending", key: "k-1", text: "hi" });
    expect(sending).toMatchObject({ status: "submitting", outbox: [{ key: "k-1", text: "hi", status: "sending" }] });
    // A turn that names no key (a server that keeps none) is taken for the message on its way.
    const started = reduceClientState(sending, { type: "event", event: eventAt(2) });
    expect(started).toMatchObject({ status: "streaming", outbox: [] });
    expect(reduceClientState(started, { type: "message.accepted", key: "k-1", turnId: "t_1" })).toBe(started);
  });

  it("keeps each message in the outbox until the stream shows its own turn, and a failed one until discarded", () => {
    const idle = fold(hydrated(), asEvents(upTo(1)));
    const turn = (seq: number, turnId: string, idempotencyKey: string) => ({
      type: "event" as const,
      event: { ...eventAt(2), seq, turnId, idempotencyKey } as ProtocolEvent,
    });
    const two = fold(idle, [
      { type: "message.sending", key: "k-old", text: "first" },
      { type: "message.sending", key: "k-mine", text: "second" },
    ]);
    const theirs = reduceClientState(two, turn(2, "t_theirs", "k-theirs"));
    expect(theirs).toMatchObject({ status: "submitting", turnId: "t_theirs" });
    expect(theirs.outbox.map((message) => message.key)).toEqual(["k-old", "k-mine"]);
    const failed = reduceClientState(theirs, {
      type: "message.failed",
      key: "k-old",
      error: { code: "network", message: "offline" },
    });
    expect(failed).toMatchObject({
      status: "submitting",
      error: undefined,
      outbox: [
        { key: "k-old", status: "failed", error: { code: "network" } },
        { key: "k-mine", status: "sending" },
      ],
    });
    const accepted = reduceClientState(failed, { type: "message.accepted", key: "k-mine", turnId: "t_mine" });
    expect(accepted.outbox[1]).toEqual({ key: "k-mine", text: "second", status: "accepted", turnId: "t_mine" });
    // Its turn, shown by the turn id the server answered (a server that names no key).
    const mine = reduceClientState(accepted, {
      type: "event",
      event: { ...eventAt(2), seq: 3, turnId: "t_mine" } as ProtocolEvent,
    });
    expect(mine).toMatchObject({ status: "streaming", turnId: "t_mine", outbox: [{ key: "k-old", status: "failed" }] });
    // Sent again, a failed message goes to the end, on its way; its turn takes it out by its key.
    const again = fold(mine, [{ type: "message.sending", key: "k-old", text: "first" }]);
    expect(again.outbox).toEqual([{ key: "k-old", text: "first", status: "sending" }]);
    expect(reduceClientState(again, turn(4, "t_old", "k-old")).outbox).toEqual([]);
    // A failed message the server took after all leaves when the stream shows its turn.
    expect(reduceClientState(mine, turn(4, "t_old", "k-old")).outbox).toEqual([]);
    // Discarding takes a message out; an unknown key changes nothing.
    expect(reduceClientState(mine, { type: "message.discarded", key: "k-old" }).outbox).toEqual([]);
    expect(reduceClientState(mine, { type: "message.discarded", key: "k-none" })).toBe(mine);
    // A turn resumed by answers is no message's.
    const resumed = { ...eventAt(2), seq: 4, turnId: "t_mine", cause: "responses" } as ProtocolEvent;
    expect(reduceClientState(again, { type: "event", event: resumed }).outbox).toHaveLength(1);
  });

  it("restores stored unsent messages as failed, and takes out those the loaded history holds", () => {
    const restored = reduceClientState(initialClientState("s_1"), {
      type: "outbox.restored",
      messages: [
        { key: "k-taken", text: "first" },
        { key: "k-unsent", text: "second" },
      ],
    });
    expect(restored.outbox).toEqual([
      { key: "k-taken", text: "first", status: "failed", error: { code: "interrupted", message: expect.any(String) } },
      {
        key: "k-unsent",
        text: "second",
        status: "failed",
        error: { code: "interrupted", message: expect.any(String) },
      },
    ]);
    const taken = {
      id: "m_1",
      role: "user" as const,
      status: "complete" as const,
      parts: [],
      idempotencyKey: "k-taken",
    };
    const snapshot = { ...emptySnapshot("s_1"), messages: [taken], lastSeq: 4 };
    const loaded = reduceClientState(restored, { type: "snapshot.loaded", snapshot });
    expect(loaded.outbox.map((message) => message.key)).toEqual(["k-unsent"]);
    // A history that holds none of them keeps the outbox as it is; restoring what is known adds nothing.
    const plain = reduceClientState(restored, { type: "snapshot.loaded", snapshot: { ...snapshot, messages: [] } });
    expect(plain.outbox).toBe(restored.outbox);
    expect(reduceClientState(loaded, { type: "outbox.restored", messages: [{ key: "k-taken", text: "first" }] })).toBe(
      loaded,
    );
    // One the server took long ago is in an earlier page: loading that page takes it out.
    const older = { ...taken, id: "m_0", idempotencyKey: "k-unsent" };
    const earlier = reduceClientState(loaded, { type: "earlier.loaded", page: { ...snapshot, messages: [older] } });
    expect(earlier.outbox).toEqual([]);
  });

  it("restores stored unsent messages as checking while the server is asked, then drops those it took and fails the rest", () => {
    const messages = [
      { key: "k-taken", text: "first" },
      { key: "k-never", text: "second", error: { code: "network", message: "No answer came back." } },
      { key: "k-resent", text: "third" },
    ];
    const checking = reduceClientState(hydrated(), { type: "outbox.restored", messages, checking: true });
    expect(checking.outbox.map(({ key, status }) => [key, status])).toEqual([
      ["k-taken", "checking"],
      ["k-never", "checking"],
      ["k-resent", "checking"],
    ]);
    // Nothing is on its way.
    expect(checking.status).toBe("idle");
    // The person sent the third again meanwhile: its own answer says what became of it.
    const resent = reduceClientState(checking, { type: "message.sending", key: "k-resent", text: "third" });
    const answered = reduceClientState(resent, { type: "outbox.checked", messages, taken: ["k-taken"] });
    expect(answered.outbox).toEqual([
      { key: "k-never", text: "second", status: "failed", error: messages[1]!.error },
      { key: "k-resent", text: "third", status: "sending" },
    ]);
    // An answer about messages no longer checking changes nothing.
    expect(reduceClientState(answered, { type: "outbox.checked", messages, taken: [] })).toBe(answered);
  });

  it("is stopping from cancelTurn() until the session is idle, another turn starts or the cancel is refused", () => {
    const stop: ClientAction = { type: "stop.requested" };
    const running = fold(hydrated(), asEvents(upTo(20)));
    const stopping = reduceClientState(running, stop);
    expect(stopping).toMatchObject({ status: "streaming", stopping: true });
    // The turn ends as cancelled.
    expect(reduceClientState(stopping, { type: "event", event: eventAt(21) }).stopping).toBe(false);
    // The Stop named a turn that was over: another tab's turn starts, and is not being stopped.
    const theirs = { ...eventAt(20), seq: 21, turnId: "t_theirs" } as ProtocolEvent;
    expect(reduceClientState(stopping, { type: "event", event: theirs }).stopping).toBe(false);
    // Refused: not stopping, with why (a deletion refused leaves a Stop as it is).
    const refused = (source: "cancelTurn" | "delete") =>
      reduceClientState(stopping, { type: "command.failed", error: { code: "network", message: "offline", source } });
    expect(refused("cancelTurn")).toMatchObject({ stopping: false, error: { source: "cancelTurn" } });
    expect(refused("delete").stopping).toBe(true);
    // Nothing running: nothing to wait for.
    expect(reduceClientState(hydrated(), stop).stopping).toBe(false);

    // Stop while this client's message is accepted and its turn not shown yet: that turn is the one being stopped.
    const accepted = fold(hydrated(), [
      ...asEvents(upTo(1)),
      { type: "message.sending", key: "k-1", text: "hi" },
      { type: "message.accepted", key: "k-1", turnId: "t_mine" },
      stop,
    ]);
    expect(accepted.stopping).toBe(true);
    const shown = { ...eventAt(2), turnId: "t_mine", idempotencyKey: "k-1" } as ProtocolEvent;
    expect(reduceClientState(accepted, { type: "event", event: shown })).toMatchObject({
      status: "streaming",
      stopping: true,
    });

    // A turn resumed by answers is the same turn, also for a client loaded from a snapshot (no turn id known).
    const loaded = fold(initialClientState("s_1"), [
      { type: "snapshot.loaded", snapshot: { ...emptySnapshot("s_1"), status: "waiting", lastSeq: 12 } },
      stop,
    ]);
    expect(loaded).toMatchObject({ turnId: undefined, stopping: true });
    const resumed = { ...eventAt(15), seq: 13 } as ProtocolEvent;
    expect(reduceClientState(loaded, { type: "event", event: resumed })).toMatchObject({
      status: "streaming",
      stopping: true,
    });
    // A stream closed for good shows no turn end: no Stop stays, or shows, under way.
    const failed: ClientAction = { type: "connection.failed", error: { code: "forbidden", message: "no" } };
    expect(reduceClientState(stopping, failed).stopping).toBe(false);
    expect(fold(running, [failed, stop]).stopping).toBe(false);

    // Before the history is loaded the session's state is not known: a Stop waits for it.
    const loading = reduceClientState(initialClientState("s_1"), stop);
    expect(loading.stopping).toBe(true);
    const snapshot = { ...emptySnapshot("s_1"), status: "running" as const, lastSeq: 3 };
    expect(reduceClientState(loading, { type: "snapshot.loaded", snapshot }).stopping).toBe(true);
    expect(reduceClientState(loading, { type: "snapshot.loaded", snapshot: emptySnapshot("s_1") }).stopping).toBe(
      false,
    );
  });

  it("is reconnecting while the stream is reopened, and error when it cannot be", () => {
    const open = reduceClientState(hydrated(), { type: "connection.changed", connection: "open" });
    expect(reduceClientState(open, { type: "connection.changed", connection: "reconnecting" }).status).toBe(
      "reconnecting",
    );
    const failed = reduceClientState(open, {
      type: "connection.failed",
      error: { code: "not_found", message: "gone" },
    });
    expect(failed).toMatchObject({ status: "error", connection: "closed", error: { code: "not_found" } });
  });

  it("hydrates pending requests from a snapshot and ignores an older one", () => {
    const snapshot = upTo(12).reduce(reduceSession, emptySnapshot("s_1"));
    const state = reduceClientState(initialClientState("s_1"), { type: "snapshot.loaded", snapshot });
    expect(state).toMatchObject({ status: "waiting", lastSeq: 12, pending: [{ status: "pending" }] });
    const older = upTo(5).reduce(reduceSession, emptySnapshot("s_1"));
    expect(reduceClientState(state, { type: "snapshot.loaded", snapshot: older })).toBe(state);
  });

  it("hydrates settled requests with their resolution, so a reload can show the answer", () => {
    const snapshot = upTo(17).reduce(reduceSession, emptySnapshot("s_1"));
    const state = reduceClientState(initialClientState("s_1"), { type: "snapshot.loaded", snapshot });
    expect(state.pending).toEqual([]);
    expect(state.requests.r_1).toMatchObject({
      status: "resolved",
      resolution: { action: "accept", value: { templateId: "b" } },
    });
  });
});
