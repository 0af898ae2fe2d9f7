import { ApiError } from "@hitl-kit/client";
import {
  type InputRequest,
  type InputResponse,
  isIdempotencyKey,
  type ProtocolEvent,
  type ValidationIssue,
} from "@hitl-kit/protocol";
import { type ChatTransport, isToolUIPart, type UIMessage, type UIMessageChunk } from "ai";
import { chunkStream, failedChunk, followEvents, type StreamEnd } from "./chunk-stream.js";
import { collectResponses } from "./collect-responses.js";
import { EarlierSettlements } from "./earlier-settlements.js";
import { EventChunker } from "./event-chunker.js";
import { type HitlRequestData, type HitlSettledPart, REQUEST_PART, replyIdOf } from "./request-part.js";
import { SessionHttp, type SessionHttpOptions } from "./session-http.js";
import { type SessionMap, storedSessionMap } from "./session-map.js";
import { exchangesOf, replyChunks, replyIdOfExchange, snapshotToUIMessages } from "./snapshot-chunks.js";

/** Options of {@link hitlChatTransport}. */
export interface HitlChatTransportOptions extends SessionHttpOptions {
  /**
   * Where the hitl-kit session of each chat id is remembered. Default: `localStorage` in a
   * browser (so a reload finds the session again), memory elsewhere. A chat whose id is a
   * session id of the caller uses that session and needs no entry.
   */
  sessions?: SessionMap;
}

/** The transport, plus what loads a chat's starting messages from the server. */
export interface HitlChatTransport<Message extends UIMessage = UIMessage> extends ChatTransport<Message> {
  /**
   * The chat's messages as the server holds them, all of them (read a request per 200), for
   * `useChat({ messages })` after a reload; an empty list when the chat has no session yet.
   */
  loadMessages(chatId: string): Promise<Message[]>;
  /** The hitl-kit session id of a chat, once it has one. */
  sessionIdOf(chatId: string): Promise<string | undefined>;
  /**
   * Stops the chat's turn on the server — what `useChat`'s `stop()` cannot do, as it only
   * stops reading. The turn ends as cancelled, with one result for each of its calls (open
   * requests cancelled), and the chat's stream, if one is open, shows it end. It stops the
   * turn this transport last showed for the chat (waiting for a message still being sent, to
   * stop the turn it starts), never a later one another tab started. Resolves once the server
   * has taken the cancel, with the requests it settled as `data-hitl-settled` parts: a parked
   * reply has no stream to show them, so apply them (see {@link applyHitlSettlement}). A chat
   * with no session has nothing to stop.
   * @example
   * const stop = async () => {
   *   const settled = await transport.cancelTurn(chat.id);
   *   chat.setMessages((messages) => settled.reduce(applyHitlSettlement, messages));
   * };
   */
  cancelTurn(chatId: string, options?: { headers?: HeadersInit }): Promise<HitlSettledPart[]>;
}

/**
 * A `ChatTransport` that runs `useChat` on a hitl-kit server. The server is the only source
 * of truth: a new user message becomes `POST /messages`, and the answers the person gave
 * in the chat (`addToolOutput`, `addToolApprovalResponse`) become one `POST /responses` —
 * only for requests the server still has open, so an edited history changes nothing. The
 * session's events stream back as UI message chunks, and `reconnectToStream` rebuilds the
 * open reply from the server, so `useChat({ resume: true })` shows a parked request after a
 * reload.
 * @example
 * const transport = hitlChatTransport({ url: "/api/agent" });
 * const chat = useChat({ id: chatId, transport, resume: true, sendAutomaticallyWhen: hitlAnswersComplete });
 */
export function hitlChatTransport<Message extends UIMessage = UIMessage>(
  options: HitlChatTransportOptions,
): HitlChatTransport<Message> {
  const http = new SessionHttp(options);
  const sessions = options.sessions ?? storedSessionMap(options.url);
  /** The log position of the parked session `loadMessages` last gave each chat, until its first reconnect. */
  const loadedParked = new Map<string, number>();
  /** The turn each chat last showed, or the message still being sent whose turn it will be: what Stop stops. */
  const shownTurns = new Map<string, string | Promise<string | undefined>>();
  /** Per chat, the answers the server last refused: refused again, they are not offered again (no loop with onToolCall). */
  const refusedAnswers = new Map<string, string>();
  /** Notes the turns a chat's stream shows; passes every event on. */
  const noteTurns =
    (chatId: string) =>
    (event: ProtocolEvent): true => {
      if (event.type === "turn.started") shownTurns.set(chatId, event.turnId);
      return true;
    };

  /** The chat's session and its snapshot; a new session when `create` is set and it has none. */
  async function open(chatId: string, create: boolean, headers?: HeadersInit) {
    const known = await sessions.get(chatId);
    const candidates = [...(known ? [known] : []), ...(SESSION_ID.test(chatId) ? [chatId] : [])];
    for (const sessionId of candidates) {
      const snapshot = await http.snapshot(sessionId, headers);
      if (snapshot) return { sessionId, snapshot };
    }
    if (!create) return undefined;
    // The chat's id is the creation's key: a chat opened twice at once, or created again after a lost answer, gets one session.
    const sessionId = await http.createSession(isIdempotencyKey(chatId) ? chatId : undefined, headers);
    await sessions.set(chatId, sessionId);
    const snapshot = await http.snapshot(sessionId, headers);
    if (!snapshot) throw new Error(`The hitl-kit session ${sessionId} vanished right after it was created.`);
    return { sessionId, snapshot };
  }

  return {
    resumeStreamIsReplay: true,

    async sendMessages({ trigger, chatId, messages, messageId, abortSignal, headers }) {
      const last = messages.at(-1);
      if (trigger === "regenerate-message" || (last?.role === "user" && messageId !== undefined)) {
        throw new Error(
          "A hitl-kit session keeps one history: a reply cannot be regenerated, nor an earlier message edited. Send a new message instead.",
        );
      }
      const extra = headers ? new Headers(headers) : undefined;
      if (last?.role === "user") {
        const text = last.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
        if (text.trim() === "") throw new Error("hitl-kit sends text messages; this message has no text.");
        const sending = (async () => {
          const { sessionId, snapshot } = (await open(chatId, true, extra))!;
          // The chat's own id for the message is its key: the same message sent again is a repeat.
          const key = isIdempotencyKey(last.id) ? last.id : undefined;
          const turnId = await sendWhenFree(http, sessionId, text, key, extra, abortSignal);
          return { sessionId, snapshot, turnId };
        })();
        const turn = sending.then(
          ({ turnId }) => turnId,
          () => undefined,
        );
        shownTurns.set(chatId, turn);
        const { sessionId, snapshot, turnId } = await sending;
        if (shownTurns.get(chatId) === turn) shownTurns.set(chatId, turnId);
        const earlier = new EarlierSettlements(snapshot.pending);
        return stream(chatId, sessionId, snapshot.lastSeq, new EventChunker(), earlier, abortSignal, extra);
      }
      const session = await open(chatId, false, extra);
      if (!session) throw new Error(`The chat ${chatId} has no hitl-kit session; send a message first.`);
      const { sessionId, snapshot } = session;
      const responses = collectResponses(messages, snapshot.pending);
      if (responses.length === 0) {
        throw new Error(
          "Nothing to send: this request may have been answered elsewhere (another tab, say); reload the chat to see it. (The last message is no new user message, and no answered tool call matches a request the server still has open: load the chat's messages again with transport.loadMessages.)",
        );
      }
      try {
        await http.respond(sessionId, responses, extra);
      } catch (error) {
        // Answered first in another tab: the stream shows that answer and what followed it.
        if (error instanceof ApiError && error.code === "already_resolved") return continued();
        if (!(error instanceof ApiError) || error.code !== "invalid_answer") throw error;
        const answers = JSON.stringify(responses);
        if (refusedAnswers.get(chatId) === answers) throw error;
        refusedAnswers.set(chatId, answers);
        return chunkStream(async (emit) => {
          for (const chunk of reopenedChunks(responses, snapshot.pending, refusalOf(error))) emit(chunk);
          emit({ type: "error", errorText: error.message });
        }, abortSignal);
      }
      refusedAnswers.delete(chatId);
      return continued();

      /** The reply's stream on from the snapshot, continuing the last message. */
      function continued() {
        const toolCallIds = (last?.parts ?? []).flatMap((part) => (isToolUIPart(part) ? [part.toolCallId] : []));
        const requests = [...snapshot.pending, ...snapshot.resolved.map((resolved) => resolved.request)];
        const chunker = new EventChunker({ toolCallIds, requests });
        return stream(chatId, sessionId, snapshot.lastSeq, chunker, "continue", abortSignal, extra);
      }
    },

    async reconnectToStream({ chatId, abortSignal, headers }) {
      const extra = headers ? new Headers(headers) : undefined;
      const session = await open(chatId, false, extra);
      if (!session) return null;
      if (session.snapshot.status === "idle") {
        // The last turn failed: after a reload the chat says why, as it did live (until the next turn).
        const { error } = session.snapshot;
        return error ? chunkStream(async (emit) => emit(failedChunk(error)), abortSignal) : null;
      }
      const { sessionId, snapshot } = session;
      const loadedAt = loadedParked.get(chatId);
      // A reconnect abandoned on its way (React's StrictMode mounts the chat twice, aborting the
      // first) leaves the mark for the one that goes on.
      if (abortSignal?.aborted) return null;
      loadedParked.delete(chatId);
      // The chat already shows this parked reply: nothing streams, and a replay would reset
      // it, undoing an answer the person gave while the replay was on its way.
      if (snapshot.status === "waiting" && loadedAt === snapshot.lastSeq) return null;
      const exchange = exchangesOf(snapshot).at(-1);
      if (!exchange) return null;
      const replay = replyChunks(exchange.steps, snapshot, replyIdOfExchange(exchange));
      const chunker = new EventChunker({
        toolCallIds: exchange.steps.flatMap((step) =>
          step.parts.flatMap((part) => (part.type === "tool" ? [part.toolCallId] : [])),
        ),
        requests: [...snapshot.pending, ...snapshot.resolved.map((resolved) => resolved.request)],
        streamingMessageIds: exchange.steps.flatMap((step) => (step.status === "streaming" ? [step.id] : [])),
      });
      const end: StreamEnd =
        snapshot.status === "running"
          ? { kind: "turn-end", after: snapshot.lastSeq }
          : { kind: "at", seq: snapshot.lastSeq, status: snapshot.status };
      return chunkStream(async (emit, signal) => {
        for (const chunk of replay) emit(chunk);
        await followEvents(http, sessionId, snapshot.lastSeq, end, chunker, emit, signal, extra, noteTurns(chatId));
      }, abortSignal);
    },

    async loadMessages(chatId) {
      const session = await open(chatId, false);
      if (!session) return [];
      if (session.snapshot.status === "waiting") loadedParked.set(chatId, session.snapshot.lastSeq);
      else loadedParked.delete(chatId);
      return snapshotToUIMessages<Message>(await http.wholeHistory(session.snapshot));
    },

    async sessionIdOf(chatId) {
      return (await open(chatId, false))?.sessionId;
    },

    async cancelTurn(chatId, { headers } = {}) {
      const turnId = await shownTurns.get(chatId);
      const session = await open(chatId, false, headers);
      if (!session) return [];
      const { sessionId, snapshot } = session;
      await http.cancelTurn(sessionId, turnId, headers);
      if (snapshot.pending.length === 0) return [];
      // The requests the cancel settled: a parked reply has no stream to show it.
      const after = await http.snapshot(sessionId, headers);
      const earlier = new EarlierSettlements(snapshot.pending);
      const settled: HitlSettledPart[] = [];
      if (!after || after.lastSeq <= snapshot.lastSeq) return settled;
      const reading = new AbortController();
      try {
        for await (const event of http.events(sessionId, snapshot.lastSeq, reading.signal, headers)) {
          settled.push(...earlier.chunks(event));
          if (event.seq >= after.lastSeq) break;
        }
      } catch {
        // The cancel went through; what it settled shows on the chat's next load.
      } finally {
        reading.abort();
      }
      return settled;
    },
  };

  /**
   * The chunks of what a command set off: events after `from`, until the turn stops. `mode`
   * is `continue` for answers, whose events continue the last reply; for a message, it is
   * what tells of the requests open before it, settled as its reply starts (at the person's
   * message).
   */
  async function stream(
    chatId: string,
    sessionId: string,
    from: number,
    chunker: EventChunker,
    mode: EarlierSettlements | "continue",
    abortSignal: AbortSignal | undefined,
    extra: HeadersInit | undefined,
  ): Promise<ReadableStream<UIMessageChunk>> {
    // Read after the command: a running turn ends with its own event; otherwise the stream ends where the log is now.
    const after = await http.snapshot(sessionId, extra);
    if (!after) throw new Error(`The hitl-kit session ${sessionId} is gone.`);
    const end: StreamEnd =
      after.status === "running"
        ? { kind: "turn-end", after: after.lastSeq }
        : { kind: "at", seq: after.lastSeq, status: after.status };
    const noted = noteTurns(chatId);
    return chunkStream(async (emit, signal) => {
      let started = mode === "continue";
      if (started) emit({ type: "start" });
      await followEvents(http, sessionId, from, end, chunker, emit, signal, extra, (event) => {
        noted(event);
        if (started) return true;
        // A message's reply starts at the person's message; what came before (calls a new
        // message cancelled) belongs to the previous reply, which `onData` is told of.
        if (mode !== "continue") for (const chunk of mode.chunks(event)) emit(chunk);
        if (event.type === "message.started" && event.role === "user") {
          started = true;
          emit({ type: "start", messageId: replyIdOf(event.messageId) });
        }
        return false;
      });
    }, abortSignal);
  }
}

/**
 * How a hitl-kit server names sessions: `ses_` and 22 characters. Only a chat id of that
 * form is tried as its own session, so a new chat (a UUID, say) costs no request for a
 * session that cannot exist.
 */
const SESSION_ID = /^ses_[\w-]{22}$/;

/**
 * The chunks that put the tool parts of refused answers back as they were before the person
 * answered: the server refused the whole batch (`422`) and took none of it, so each request
 * is still open. `useChat` had shown each answer as given; now the person can answer again,
 * and each request's data part says why (`<HitlRequestPart>` shows it on the widget).
 */
function reopenedChunks(
  responses: readonly InputResponse[],
  pending: readonly InputRequest[],
  refused: Refusal,
): UIMessageChunk[] {
  const open = new Map(pending.map((request) => [request.requestId, request]));
  return responses.flatMap((response): UIMessageChunk[] => {
    const request = open.get(response.requestId);
    if (!request) return [];
    const { requestId, toolCallId, toolName, input } = request;
    const data: HitlRequestData = { request, state: "open", refused };
    return [
      { type: `data-${REQUEST_PART}`, id: requestId, data },
      request.kind === "approval"
        ? { type: "tool-approval-request", approvalId: requestId, toolCallId }
        : { type: "tool-input-available", toolCallId, toolName, input },
    ];
  });
}

/** The server's refusal of an answer, as its request's data part carries it. */
type Refusal = NonNullable<Extract<HitlRequestData, { state: "open" }>["refused"]>;

/** The server's refusal, as a request part carries it: its code, message and, for a `422`, each issue. */
function refusalOf(error: ApiError): Refusal {
  const issues = Array.isArray(error.details) ? (error.details as ValidationIssue[]) : undefined;
  return { code: error.code, message: error.message, ...(issues ? { issues } : {}) };
}

/** How often a message waiting for the session's running turn looks whether it has ended. */
const TURN_LOOK_MS = 500;

/**
 * Sends a message, waiting while the session's turn runs: the server takes one message per
 * turn (`409 turn_running`), and `useChat` lets the person send while a reply streams (the
 * reply's end would then hide the refusal). The message goes once the turn parks or ends, or
 * not at all when `signal` aborts (`stop()`).
 */
async function sendWhenFree(
  http: SessionHttp,
  sessionId: string,
  text: string,
  key: string | undefined,
  headers: Headers | undefined,
  signal: AbortSignal | undefined,
): Promise<string> {
  for (;;) {
    try {
      return await http.sendMessage(sessionId, text, key, headers);
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== "turn_running") throw error;
    }
    do {
      signal?.throwIfAborted();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, TURN_LOOK_MS);
        signal?.addEventListener("abort", done, { once: true });
        function done() {
          clearTimeout(timer);
          signal?.removeEventListener("abort", done);
          resolve();
        }
      });
      signal?.throwIfAborted();
    } while (await http.turnRunning(sessionId, headers));
  }
}
