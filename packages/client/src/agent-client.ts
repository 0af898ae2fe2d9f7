import { type InputResponse, isIdempotencyKey, ProtocolError, type ToolName, type ToolSet } from "@hitl-kit/protocol";
import type { ApiClient, ApiClientOptions } from "./api-types.js";
import { checkAnswer, sentAnswer } from "./check-answer.js";
import type { ClientAction } from "./client-action.js";
import { type ClientState, type ClientStateOf, initialClientState, type OutgoingMessage } from "./client-state.js";
import { type CommandError, type CommandResult, toCommandError, toRequestError } from "./command-result.js";
import { KeptMessages } from "./kept-messages.js";
import type { OutboxStorage } from "./outbox-keeper.js";
import { reduceClientState } from "./reduce-client-state.js";
import type { WireResolution } from "./reduce-requests.js";
import { type RequestRef, requestIdOf } from "./request-ref.js";
import type { AnswerTo, RequestOf } from "./request-state.js";
import { idempotencyKey } from "./retry.js";
import { type ConnectionOptions, SessionConnection } from "./session-connection.js";
import { sseTransport } from "./sse-transport.js";
import type { AgentCommand, Transport } from "./transport.js";

/**
 * Options of {@link createAgentClient}: a `url` (and the HTTP options of an
 * {@link ApiClient}), an `api` client to share, or a ready-made `transport`.
 */
export type AgentClientOptions = {
  /** Attach to this session. Without it, the client has no session until `send()` (or `createSession()`) makes one. */
  sessionId?: string;
  /**
   * Where the session's unsent messages are kept (`sessionStorage` in a browser): a
   * message still on its way or not sent when the page closes comes back in `outbox` as
   * `failed` on the next page of the session, to send again or discard. Default: memory only.
   */
  outboxStorage?: OutboxStorage | undefined;
  /**
   * How long the page may stay hidden before the client closes its event stream (default
   * 60 000 ms); `false` keeps it open however long the page is hidden. Over HTTP/1.1 a
   * browser allows six connections per host and each open chat tab's stream holds one, so
   * hidden tabs give theirs back for the tabs in use. The stream reopens when the page is
   * shown again, or at once when the person sends or answers from the hidden page,
   * resuming after the last event applied; meanwhile `connection` is `paused`.
   */
  hiddenStreamMs?: number | false;
} & (
  | (ApiClientOptions & { api?: undefined; transport?: undefined })
  | { api: ApiClient; url?: undefined; transport?: undefined }
  | { transport: Transport; url?: string; api?: undefined }
);

/** Called after every change, with the new state and the one before. */
export type StateListener<Tools extends ToolSet = ToolSet> = (
  state: ClientStateOf<Tools>,
  previous: ClientStateOf<Tools>,
) => void;

/**
 * A session's live state and its commands, framework-free. The state is immutable and
 * replaced on every change (`getSnapshot` returns the same object until then), so it
 * plugs into `useSyncExternalStore` or any store. Create it with {@link createAgentClient}.
 *
 * Creating a client does no I/O. The first subscriber starts it — the session's snapshot,
 * then its event stream — and when the last one leaves, the stream stops (it resumes from
 * where it was on the next subscriber). So React's StrictMode and server rendering cost
 * nothing, and a session is only created by `send()` or `createSession()`.
 *
 * With a tool map (`createAgentClient<typeof tools>(…)`), its state's requests are typed per
 * tool, and `respond(request, value)` takes that request's tool's answer.
 */
export class AgentClient<Tools extends ToolSet = ToolSet> {
  /**
   * Resolves once the session is known and its first snapshot applied (after the first
   * subscriber, or when `send()` creates the session); rejects if that fails, or (as
   * `aborted`) when the client is closed first. It starts nothing by itself.
   */
  readonly ready: Promise<void>;
  readonly #transport: Transport;
  readonly #listeners = new Set<StateListener>();
  readonly #connection: SessionConnection;
  #state: ClientState;
  #creating: Promise<string> | undefined;
  /** The last message sent, until its request settles: the next waits for it, and so does a cancel. */
  #sends: Promise<CommandResult | undefined> = Promise.resolve(undefined);
  /** The turns the stream showed started by this client's keyed messages (the last few), by key. */
  readonly #taken = new Map<string, string>();
  /** The messages still on their way (being sent, resent, or waiting for the one before), by key. */
  readonly #onItsWay = new Map<string, { abort: AbortController; done: Promise<CommandResult> }>();
  /** Keys of messages Stop took back before an answer: if the stream shows the server took one, its turn is stopped. */
  readonly #stopped = new Set<string>();
  /** The failed message given up last: sent back unchanged as the next message, it is that message. */
  #discarded: { text: string; key: string } | undefined;
  /** What an earlier page kept unsent, and the outbox kept in `outboxStorage` for the next. */
  readonly #kept: KeptMessages;
  /** Aborted by `dispose()`: the session's creation and every command still on its way stop. */
  readonly #life = new AbortController();
  /** The first state, before what this page restored: what a server render showed. */
  readonly #serverState: ClientState;

  constructor(options: AgentClientOptions) {
    this.#transport = options.transport ?? sseTransport(options);
    this.#kept = new KeptMessages(
      options.outboxStorage,
      options.sessionId,
      this.#transport,
      (action) => this.#dispatch(action),
      () => this.#letGo(),
    );
    this.#serverState = initialClientState(options.sessionId);
    this.#state = this.#kept.initial(this.#serverState);
    this.#connection = new SessionConnection(
      this.#transport,
      { dispatch: (...actions) => this.#dispatch(...actions), lastSeq: () => this.#state.lastSeq },
      {
        ...(options.api === undefined && options.transport === undefined ? connectionOptions(options) : {}),
        ...(options.hiddenStreamMs === undefined ? {} : { hiddenStreamMs: options.hiddenStreamMs }),
      },
    );
    this.ready = this.#connection.ready;
    if (options.sessionId === undefined) this.#connection.markReady();
  }

  /** Listens to every change; the first listener starts the client. Returns the function that stops listening. */
  subscribe = (listener: StateListener<Tools>): (() => void) => {
    this.#listeners.add(listener as StateListener);
    this.#connection.start(this.#state.sessionId);
    return () => {
      if (this.#listeners.delete(listener as StateListener) && this.#listeners.size === 0) this.#connection.stopSoon();
    };
  };

  /** The current state: the same object until something changes. */
  getSnapshot = (): ClientStateOf<Tools> => this.#state as ClientStateOf<Tools>;

  /**
   * The state a server render shows, for hydration (`useSyncExternalStore`'s third
   * argument): the client's first state, before anything this page holds that a server
   * cannot (what `outboxStorage` kept of a new chat), so the page hydrates without a mismatch
   * and shows the rest right after.
   */
  getServerSnapshot = (): ClientState => this.#serverState;

  /**
   * Creates the session now, if the client has none yet (otherwise resolves with its id).
   * `send()` does this by itself; call it when you need the id before the first message.
   */
  async createSession(): Promise<string> {
    const known = this.#state.sessionId;
    if (known !== undefined) return known;
    this.#creating ??= this.#transport.createSession({ key: this.#kept.creationKey, signal: this.#life.signal }).then(
      ({ sessionId }) => {
        this.#dispatch({ type: "session.created", sessionId });
        this.#connection.markReady();
        if (this.#listeners.size > 0) this.#connection.start(sessionId);
        return sessionId;
      },
      (error: unknown) => {
        this.#creating = undefined;
        throw error;
      },
    );
    return this.#creating;
  }

  /**
   * Sends the person's message, starting a turn (open requests are cancelled by the server
   * by default). The message is in `outbox` at once, until the stream shows its turn; one
   * that fails stays there, `failed`, until sent again or discarded. Each message goes with
   * an `Idempotency-Key`: resent after a dropped connection, or sent again after a failure,
   * it starts one turn. Send a failed message again with its `key`; without one, the same
   * text as a failed message (or as the one just discarded, sent next) is that message again. Messages go one at a
   * time, in the order sent; one waiting behind a message that fails is not sent either.
   * @throws {TypeError} for a `key` that is not 1 to 200 visible ASCII characters.
   */
  send(text: string, options: { key?: string } = {}): Promise<CommandResult> {
    if (options.key !== undefined && !isIdempotencyKey(options.key)) {
      throw new TypeError(
        `send(): the key ${JSON.stringify(options.key)} is not 1 to 200 visible ASCII characters (it is sent as the Idempotency-Key header); use the key of a message in outbox, or a UUID.`,
      );
    }
    const key = options.key ?? this.#keyFor(text);
    this.#discarded = undefined;
    this.#stopped.delete(key); // sent again: the person wants it after all
    this.#dispatch({ type: "message.sending", key, text });
    const abort = new AbortController();
    if (this.#life.signal.aborted) abort.abort(); // a disposed client sends nothing
    const queued = this.#onItsWay.size > 0;
    const sent = this.#sends.then((before) =>
      queued && before && !before.ok ? this.#notSent(key, before.error) : this.#sendMessage(text, key, abort.signal),
    );
    this.#onItsWay.set(key, { abort, done: sent });
    this.#sends = sent;
    return sent;
  }

  /**
   * Gives up a message that failed (`status: "failed"` in `outbox`), to edit it or let it
   * go. If the server took it after all, its turn still shows; and if the next message sent
   * is the same text (edited back unchanged), it is still that message, so it is not taken
   * twice. Returns the discarded message, or `undefined` when the key names no failed message.
   */
  discard(key: string): OutgoingMessage | undefined {
    const message = this.#state.outbox.find((sent) => sent.key === key && sent.status === "failed");
    if (!message) return undefined;
    this.#discarded = { text: message.text, key };
    this.#dispatch({ type: "message.discarded", key });
    return message;
  }

  /** The key of a failed or `checking` message with this text, or of the one just discarded, or a fresh one. */
  #keyFor(text: string): string {
    const failed = this.#state.outbox.find(
      (message) => (message.status === "failed" || message.status === "checking") && message.text === text,
    );
    return failed?.key ?? (this.#discarded?.text === text ? this.#discarded.key : idempotencyKey());
  }

  async #sendMessage(text: string, key: string, signal: AbortSignal): Promise<CommandResult> {
    this.#connection.retryNow(); // the person acts: a connection that is down tries again now
    const result = signal.aborted
      ? { ok: false as const, error: { code: "aborted", message: "Stopped before it was sent." } }
      : await this.#post({ type: "message", text, key }, signal);
    // Every attempt failed on the way (or stopped once the stream showed its turn): the server took it.
    const taken = this.#taken.get(key);
    if (!result.ok && taken === undefined) return this.#notSent(key, result.error);
    this.#onItsWay.delete(key);
    const turnId = result.ok ? (result.body as { turnId?: unknown } | undefined)?.turnId : taken;
    // A kept message the server had taken is older than the history loaded: its turn will not stream again.
    const old = result.ok && result.status === 200 && this.#kept.wasKept(key);
    if (typeof turnId === "string") {
      this.#dispatch({ type: "message.accepted", turnId, key, shown: turnId === taken || old });
    }
    return result.ok ? result : { ok: true, status: 202, body: { turnId } };
  }

  #notSent(key: string, error: CommandError): CommandResult {
    this.#onItsWay.delete(key);
    this.#dispatch({ type: "message.failed", key, error });
    return { ok: false, error };
  }

  /**
   * Answers a request (named by its id, the request, or its state) with a value, after
   * checking it against the request's answer schema: a value that does not fit puts the
   * request in `error` (code `invalid_answer`) and sends nothing. The request is
   * `submitting`, with `sent` holding the value, until the server's `input.resolved` arrives.
   * Name the request by its state or the request itself to type the value (with a tool map).
   */
  respond<Name extends ToolName<Tools>>(
    request: RequestOf<Name> | RequestRef,
    value: AnswerTo<Tools, Name>,
  ): Promise<CommandResult> {
    return this.#answer({
      requestId: requestIdOf(request),
      action: "accept",
      ...(value === undefined ? {} : { value }),
    });
  }

  /** Declines a request (for an approval: denies it), optionally saying why. */
  decline(request: RequestRef, reason?: string): Promise<CommandResult> {
    return this.#answer({
      requestId: requestIdOf(request),
      action: "decline",
      ...(reason === undefined ? {} : { reason }),
    });
  }

  /** Cancels a request: its tool call ends as cancelled. */
  cancel(request: RequestRef): Promise<CommandResult> {
    return this.#answer({ requestId: requestIdOf(request), action: "cancel" });
  }

  /**
   * Loads the page of messages before those shown (`GET /sessions/:id?before=`): a session
   * is hydrated with its newest messages only, and `state.session.before` says whether
   * earlier ones exist. Resolves `ok` with nothing to do when none do.
   */
  async loadEarlier(limit?: number): Promise<CommandResult> {
    const { sessionId, session } = this.#state;
    if (sessionId === undefined || session.before === undefined) return { ok: true, status: 200, body: undefined };
    try {
      const page = await this.#transport.loadSnapshot(sessionId, {
        before: session.before,
        ...(limit === undefined ? {} : { limit }),
      });
      this.#dispatch({ type: "earlier.loaded", page });
      return { ok: true, status: 200, body: page };
    } catch (error) {
      return { ok: false, error: toCommandError(error) };
    }
  }

  /**
   * Cancels the running or parked turn (`POST /sessions/:id/cancel`): the turn ends as
   * cancelled and its open requests are cancelled, each call with its one result. The
   * command names the turn this client shows (the one its last message started, or the
   * newest it has seen), so it never stops a later turn it has not seen yet. Messages still
   * on their way stop being sent at once (they fail with code `aborted`); one the server
   * took meanwhile has its turn stopped, now or when the stream shows it. When none was
   * taken there is nothing to stop and nothing is sent (`status` 200), so it cannot stop
   * another tab's turn.
   */
  async cancelTurn(): Promise<CommandResult> {
    this.#connection.retryNow(); // the stream that will show the turn stopped is wanted now
    const stopping = [...this.#onItsWay];
    if (stopping.length > 0) {
      for (const [, { abort }] of stopping) abort.abort();
      const results = await Promise.all(stopping.map(([, { done }]) => done));
      stopping.forEach(([key], index) => {
        if (results[index]!.ok) return;
        forgetOldest(this.#stopped.add(key));
      });
      if (results.every((result) => !result.ok)) return { ok: true, status: 200, body: {} };
    }
    const { outbox, turnId } = this.#state;
    const shown = outbox.findLast((message) => message.status === "accepted")?.turnId ?? turnId;
    this.#dispatch({ type: "stop.requested" });
    return this.#command({ type: "cancel", ...(shown === undefined ? {} : { turnId: shown }) }, "cancelTurn");
  }

  /**
   * Deletes the session on the server (`DELETE /sessions/:id`): a running turn is stopped
   * and open requests are cancelled, each call with its one result, then everything is
   * removed. On success the client closes; a failure is the client's error (source `delete`).
   */
  async deleteSession(): Promise<CommandResult> {
    const result = await this.#command({ type: "delete" }, "delete");
    if (result.ok) {
      this.close();
      this.#kept.forget(this.#state.sessionId);
    }
    return result;
  }

  /** Closes the event stream for good: no more events, no reconnects, whoever subscribes. */
  close(): void {
    this.#connection.close();
  }

  /**
   * Ends the client for good, as when the chat that owns it unmounts (`useAgent` does this):
   * its stream closes, and nothing more is sent. A message or an answer still on its way is
   * given up, a session's creation too, so no resend goes out later with whatever identity
   * `headers` gives by then (the next person's, after a sign-out). What `outboxStorage`
   * holds stays as it was, for the session's next client, and is no longer written:
   * `clearUnsentMessages` after it sticks.
   */
  dispose(): void {
    this.#kept.stop();
    this.#life.abort();
    this.#letGo();
    this.close();
  }

  async #answer(response: InputResponse): Promise<CommandResult> {
    const { requestId } = response;
    this.#connection.retryNow(); // the person acts: a connection that is down tries again now
    await this.#connection.started; // check against the hydrated request; #post reports a failed start
    const invalid = checkAnswer(this.#state.requests[requestId], response);
    if (invalid) {
      this.#dispatch({ type: "request.failed", requestId, error: invalid });
      return { ok: false, error: invalid };
    }
    this.#dispatch({ type: "request.submitting", requestId, sent: sentAnswer(response) });
    const result = await this.#post({ type: "responses", responses: [response] });
    if (result.ok) return result;
    // Settled elsewhere (another tab): shown as the server settled it, and the stream, behind, catches up.
    const won =
      result.error.code === "already_resolved" &&
      (result.error.details as { resolution?: WireResolution } | undefined)?.resolution;
    this.#dispatch({ type: "request.failed", requestId, error: toRequestError(result.error), won });
    if (won) this.#connection.reconnect();
    return result;
  }

  async #command(command: AgentCommand, source: "cancelTurn" | "delete"): Promise<CommandResult> {
    const result = await this.#post(command);
    if (!result.ok) this.#dispatch({ type: "command.failed", error: { ...result.error, source } });
    return result;
  }

  async #post(command: AgentCommand, signal?: AbortSignal): Promise<CommandResult> {
    let error: CommandError;
    try {
      const sessionId = command.type === "message" ? await this.createSession() : this.#state.sessionId;
      if (sessionId === undefined) {
        throw new ProtocolError("not_found", "This client has no session yet: send a message to start one.");
      }
      await this.#connection.started;
      const sentAt = Date.now();
      const reply = await this.#transport.send(sessionId, command, { signal: signal ?? this.#life.signal });
      // Accepted (not a repeat): the stream shows its events, or is found dead and reopened.
      if (reply.status === 202) this.#connection.expectEvents(sentAt);
      return { ok: true, status: reply.status, body: reply.body };
    } catch (thrown) {
      error = toCommandError(thrown);
    }
    return { ok: false, error };
  }

  /** Applies actions in order and tells listeners once, with the state before the first. */
  #dispatch(...actions: ClientAction[]): void {
    for (const action of actions) {
      if (action.type !== "event" || action.event.type !== "turn.started" || !action.event.idempotencyKey) continue;
      const { idempotencyKey: key, turnId } = action.event;
      forgetOldest(this.#taken.set(key, turnId));
      // A message still being resent was taken: stop resending it.
      this.#onItsWay.get(key)?.abort.abort();
      // The server took a message Stop took back: stop its turn, as the person asked.
      if (this.#stopped.delete(key)) {
        actions.push({ type: "stop.requested" }); // after its turn's start (the loop skips it)
        void this.#command({ type: "cancel", turnId }, "cancelTurn");
      }
    }
    const previous = this.#state;
    const next = this.#kept.settle(previous, actions.reduce(reduceClientState, previous));
    if (next === previous) return;
    this.#state = next;
    for (const listener of this.#listeners) {
      try {
        listener(next, previous);
      } catch (error) {
        // A listener's bug must not break the stream that delivered the event.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  /** A newer client of the session took its unsent messages over: stop sending them, as Stop does. */
  #letGo(): void {
    for (const { abort } of this.#onItsWay.values()) abort.abort();
  }
}

/** The backoff of the client's stream, and the server's heartbeat as its silence timeout implies (three heartbeats). */
function connectionOptions({ reconnect, streamSilenceMs }: ApiClientOptions): ConnectionOptions {
  return {
    ...(reconnect ? { backoff: reconnect } : {}),
    ...(streamSilenceMs === undefined ? {} : { heartbeatMs: streamSilenceMs / 3 }),
  };
}

/** How many keyed messages' turns (and stopped messages) a client remembers: enough for the messages still being resent. */
const TAKEN_KEYS = 16;

/** Keeps the newest {@link TAKEN_KEYS} keys of a map or set (both iterate oldest first). */
function forgetOldest(remembered: Map<string, string> | Set<string>): void {
  if (remembered.size > TAKEN_KEYS) remembered.delete(remembered.keys().next().value!);
}

/**
 * Creates a client for one session, with no I/O yet: the first `subscribe` attaches to
 * `sessionId` (hydrating from its snapshot first, so open requests show at once) and
 * follows its event stream, reconnecting when it drops. Without a `sessionId`, the first
 * `send()` creates the session.
 * @example
 * const client = createAgentClient({ url: "/api/agent", sessionId: localStorage.sessionId });
 * const unsubscribe = client.subscribe((state) => render(state.messages, state.pending));
 * await client.send("make me a poster");
 * // later, from a widget:
 * await client.respond(requestId, { templateId: "calm" });
 */
export function createAgentClient<Tools extends ToolSet = ToolSet>(options: AgentClientOptions): AgentClient<Tools> {
  return new AgentClient<Tools>(options);
}
