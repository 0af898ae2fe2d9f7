import { createHash } from "node:crypto";
import { ProtocolError } from "@hitl-kit/protocol";
import { snapshotPageOf } from "../store/project-events.js";
import type { WriteBatch } from "../store/records.js";
import { idleSession } from "../store/records.js";
import type { AgentRuntime, CreatedSession, SentMessage } from "./agent-runtime-types.js";
import { cutText } from "./cut-text.js";
import { randomId } from "./ids.js";
import { failureLine } from "./logged-error.js";
import { RequestSettler } from "./request-settler.js";
import { RetentionSweeper } from "./retention-sweeper.js";
import { type AgentRuntimeOptions, RuntimeCore } from "./runtime-core.js";
import { RuntimeLifecycle, refusedOnceClosed, shuttingDown } from "./runtime-lifecycle.js";
import { stopReasons } from "./stop-reasons.js";
import { TurnDriver } from "./turn-driver.js";
import { TurnStopper } from "./turn-stopper.js";

/**
 * Creates the runtime. Tools are checked here: two tools with one name, a server tool
 * without an executor, or a tool with both an executor and client resolution throw an
 * error that names the tool.
 * @example
 * const runtime = createAgentRuntime({
 *   model: anthropic("claude-sonnet-4-5"),
 *   tools: [pickTemplate, implement(refund, async (input) => payments.refund(input))],
 *   store: sqliteStore(".data/hitl.sqlite"),
 * });
 */
export function createAgentRuntime(options: AgentRuntimeOptions): AgentRuntime {
  const core = new RuntimeCore(options);
  const { store, lock } = core;
  const driver = new TurnDriver(core);
  // Whether the runtime is closing is the lifecycle's to say: it is made below, before any call can ask.
  const settler = new RequestSettler(core, driver, (): boolean => lifecycle.closing);
  core.expiry = settler.expiry;
  const stopper = new TurnStopper(core, driver, settler);
  core.coordination.onAbort((sessionId, cause) => stopper.abortRequested(sessionId, cause));
  const sweeper =
    options.deleteIdleAfter === undefined
      ? undefined
      : new RetentionSweeper(
          store,
          options.deleteIdleAfter,
          (sessionId) =>
            stopper.deleteSession(sessionId).catch((error: unknown) => {
              if (!(error instanceof ProtocolError)) {
                core.logger.error(...failureLine(`hitl-kit: could not delete ${sessionId}`, error));
              }
            }),
          (error) => core.trouble("deleting idle sessions failed (the next sweep tries again)", error),
        );
  const lifecycle = new RuntimeLifecycle(core, driver, settler.expiry, sweeper);
  const titleOf = (text: string) => {
    const title = options.sessionTitle ? options.sessionTitle(text) : cutText(text, 80);
    return title === undefined ? {} : { title };
  };
  const ready = lifecycle.start();

  /**
   * Runs a message under the session's lock; `{ stop }` when a running turn's tool waits for
   * the person's answer and the turn must stop first (`mayStop`: once per message).
   */
  function send(sessionId: string, text: string, key: string | undefined, mayStop: boolean) {
    return settler.withSession(sessionId, async (session): Promise<SentMessage | { stop: string }> => {
      const digest = key === undefined ? undefined : textDigest(text);
      const known = key === undefined ? undefined : session.keyedMessages?.find((sent) => sent.key === key);
      if (known) {
        if (known.digest !== digest) {
          throw new ProtocolError(
            "bad_request",
            `The Idempotency-Key ${JSON.stringify(key)} was already used for another message in this session; send a new message with a new key.`,
          );
        }
        return { turnId: known.turnId, repeated: true };
      }
      // Older than the keys the session remembers with their text: still the same message.
      const earlier = key === undefined ? undefined : await store.findKeyedTurn(sessionId, key);
      if (earlier !== undefined) return { turnId: earlier, repeated: true };
      if (lifecycle.closing) throw shuttingDown();
      if (session.status === "running" || session.status === "resuming") {
        const asking = (await store.getOpenRequests(sessionId)).length > 0;
        if (asking && options.whileParked !== "reject" && mayStop) return { stop: session.turnId! };
        throw asking
          ? waitingForAnswers()
          : new ProtocolError("turn_running", "A turn is running in this session; wait for it to finish or cancel it.");
      }
      let ended: WriteBatch = {};
      if (session.status === "waiting") {
        if (options.whileParked === "reject") throw waitingForAnswers();
        ended = await core.endTurnBatch(session, { type: "turn.cancelled" }, stopReasons.message);
      }
      const turnId = randomId("turn");
      const messageId = randomId("msg");
      const keyed = key === undefined ? {} : { idempotencyKey: key };
      await core.mustCommit(sessionId, {
        ...ended,
        events: [
          ...(ended.events ?? []),
          { type: "turn.started", turnId, cause: "message", ...keyed },
          { type: "message.started", messageId, role: "user", ...keyed },
          { type: "text.delta", messageId, delta: text },
          { type: "message.completed", messageId },
        ],
        transcript: [...(ended.transcript ?? []), { role: "user", content: [{ type: "text", text }] }],
        session: {
          ...ended.session,
          status: "running",
          turnId,
          step: 0,
          stepOpen: false,
          ...(session.title === undefined ? titleOf(text) : {}),
          ...(key === undefined || digest === undefined
            ? {}
            : { keyedMessages: [...(session.keyedMessages ?? []), { key, digest, turnId }].slice(-KEYED_MESSAGES) }),
        },
      });
      driver.kick(sessionId);
      return { turnId, repeated: false };
    });
  }

  const runtime: AgentRuntime = {
    ready,
    async createSession({ owner, key } = {}) {
      const cap = options.maxSessionsPerOwner;
      const sessionId = key === undefined ? randomId("ses") : keyedSessionId(owner, key);
      const made = async () => {
        if (key === undefined) return false;
        const session = await store.getSession(sessionId);
        if (session && session.owner !== owner)
          throw new ProtocolError("bad_request", "This Idempotency-Key is taken.");
        return session !== undefined;
      };
      const create = async (): Promise<CreatedSession> => {
        if (await made()) return { sessionId, repeated: true };
        if (owner !== undefined && cap !== undefined && (await store.countSessions(owner)) >= cap) {
          throw new ProtocolError(
            "session_limit",
            `You have ${cap} sessions, the most allowed; delete one (DELETE /sessions/:id) to start another.`,
            { limit: cap },
          );
        }
        try {
          await store.createSession(idleSession(sessionId, owner));
        } catch (error) {
          // The same creation, resent while the first was being written (here or on another instance).
          if (await made()) return { sessionId, repeated: true };
          throw error;
        }
        await core.mustCommit(sessionId, { events: [{ type: "session.created" }] });
        return { sessionId, repeated: false };
      };
      // With a cap, one creation at a time per owner, so concurrent requests cannot pass it
      // together. The lock's key is no session's (ids have no space) and fits a text column.
      return owner === undefined || cap === undefined ? create() : lock.run(`owner ${owner}`, create);
    },
    // As a snapshot says it: a turn picked up again after its answers (`resuming`) is running.
    listSessions: async (listOptions) =>
      (await store.listSessions(listOptions)).map((summary) =>
        summary.status === "resuming" ? { ...summary, status: "running" } : summary,
      ),
    async getSessionInfo(sessionId) {
      const session = await store.getSession(sessionId);
      if (!session) return undefined;
      const { owner, createdAt, updatedAt, title, status, lastSeq } = session;
      return {
        sessionId,
        ...(owner === undefined ? {} : { owner }),
        createdAt,
        updatedAt,
        status,
        lastSeq,
        pending: (await store.getOpenRequests(sessionId)).length,
        ...(title === undefined ? {} : { title }),
      };
    },
    deleteSession: (sessionId) => stopper.deleteSession(sessionId),
    async getSnapshot(sessionId, page) {
      await settler.withSession(sessionId, async () => {});
      const snapshot = await store.readSnapshot(sessionId, page && snapshotPageOf(page));
      if (!snapshot) throw new ProtocolError("not_found", `There is no session ${sessionId}.`);
      return snapshot;
    },
    async findTakenMessages(sessionId, keys) {
      if (!(await store.getSession(sessionId)))
        throw new ProtocolError("not_found", `There is no session ${sessionId}.`);
      const asked = [...new Set(keys)];
      const turns = await Promise.all(asked.map((key) => store.findKeyedTurn(sessionId, key)));
      return asked.flatMap((key, index) => {
        const turnId = turns[index];
        return turnId === undefined ? [] : [{ key, turnId }];
      });
    },
    async readEvents(sessionId, afterSeq, limit) {
      await settler.withSession(sessionId, async () => {});
      return store.readEvents(sessionId, afterSeq, limit);
    },
    subscribe(sessionId, listener, onEnd) {
      // Counted for telemetry until it stops listening or the session's events end.
      const closed = core.telemetry.streamOpened(sessionId);
      const unsubscribe = core.hub.subscribe(sessionId, listener, () => {
        closed();
        onEnd?.();
      });
      return () => {
        closed();
        unsubscribe();
      };
    },
    async sendMessage(sessionId, text, { key } = {}) {
      // A message while a running tool's question waits for the person stops that turn first
      // (outside the lock, which its driver needs to end it), as one while parked cancels it.
      let stopped: string | undefined;
      for (;;) {
        const sent = await send(sessionId, text, key, stopped === undefined);
        if (!("stop" in sent)) return sent;
        stopped = sent.stop;
        await stopper.cancel(sessionId, { turnId: stopped, stop: "message" });
      }
    },
    respond: (sessionId, responses) => settler.respond(sessionId, responses),
    cancel: (sessionId, cancelOptions) => stopper.cancel(sessionId, cancelOptions),
    idle: () => lifecycle.settled(),
    health: () => lifecycle.health(),
    logger: core.logger,
    close: (closeOptions) => lifecycle.close(closeOptions),
  };
  return refusedOnceClosed(runtime, () => lifecycle.closed);
}

/**
 * How many keyed messages a session remembers: a client resends one for seconds, while at
 * most a message or two of other tabs can overtake it.
 */
const KEYED_MESSAGES = 8;

/**
 * The id of the session `owner` creates under `key`: the same for a resent creation, on any
 * instance and after a restart, and another for another owner.
 */
function keyedSessionId(owner: string | undefined, key: string): string {
  const digest = createHash("sha256")
    .update(`session\u0000${owner ?? ""}\u0000${key}`)
    .digest("base64url");
  return `ses_${digest.slice(0, 22)}`;
}

/** What a keyed message is compared by: its text's SHA-256, so the session keeps 43 characters, not the text. */
function textDigest(text: string): string {
  return createHash("sha256").update(text).digest("base64url");
}

/** The refusal of a message while requests wait for answers, with `whileParked: "reject"`. */
const waitingForAnswers = () =>
  new ProtocolError(
    "turn_running",
    "Requests in this session are waiting for an answer; answer, decline or cancel them first.",
  );
