import { type InputResponse, validateJsonSchema } from "@hitl-kit/protocol";
import type { ClientAction } from "./client-action.js";
import { type ClientState, initialClientState } from "./client-state.js";
import { type CommandError, type CommandResult, toCommandError, toRequestError } from "./command-result.js";
import { reduceClientState } from "./reduce-client-state.js";
import type { RequestError } from "./request-state.js";
import { type SseTransportOptions, sseTransport } from "./sse-transport.js";
import type { AgentCommand, Transport } from "./transport.js";

/** Options of {@link createAgentClient}: a `url` (and HTTP options), or a ready-made `transport`. */
export type AgentClientOptions = {
  /** Attach to this session; without it, a new session is created. */
  sessionId?: string;
} & ((SseTransportOptions & { transport?: undefined }) | { transport: Transport; url?: string });

/** Called after every change, with the new state and the one before. */
export type StateListener = (state: ClientState, previous: ClientState) => void;

/**
 * A session's live state and its commands, framework-free. The state is immutable and
 * replaced on every change (`getSnapshot` returns the same object until then), so it
 * plugs into `useSyncExternalStore` or any store. Create it with {@link createAgentClient}.
 */
export class AgentClient {
  /** Resolves once the session id is known and the first snapshot is applied; rejects if that fails. */
  readonly ready: Promise<void>;
  readonly #transport: Transport;
  readonly #listeners = new Set<StateListener>();
  #state: ClientState;
  #closeStream: (() => void) | undefined;
  #closed = false;

  constructor(options: AgentClientOptions) {
    this.#transport = options.transport ?? sseTransport(options);
    this.#state = initialClientState(options.sessionId);
    this.ready = this.#start(options.sessionId);
    this.ready.catch(() => {}); // the failure is in the state; awaiting `ready` is optional
  }

  /** Listens to every change; returns the function that stops listening. */
  subscribe = (listener: StateListener): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  /** The current state: the same object until something changes. */
  getSnapshot = (): ClientState => this.#state;

  /** Sends the person's message, starting a turn (open requests are cancelled by the server by default). */
  send(text: string): Promise<CommandResult> {
    return this.#command({ type: "message", text }, "send");
  }

  /**
   * Answers a request with a value, after checking it against the request's answer schema:
   * a value that does not fit puts the request in `error` (code `invalid_answer`) and sends
   * nothing. The request is `submitting` until the server's `input.resolved` arrives.
   */
  respond(requestId: string, value: unknown): Promise<CommandResult> {
    return this.#answer({ requestId, action: "accept", ...(value === undefined ? {} : { value }) });
  }

  /** Declines a request (for an approval: denies it), optionally saying why. */
  decline(requestId: string, reason?: string): Promise<CommandResult> {
    return this.#answer({ requestId, action: "decline", ...(reason === undefined ? {} : { reason }) });
  }

  /** Cancels a request: its tool call ends as cancelled. */
  cancel(requestId: string): Promise<CommandResult> {
    return this.#answer({ requestId, action: "cancel" });
  }

  /** Stops the running or parked turn (`POST /sessions/:id/cancel`). */
  stop(): Promise<CommandResult> {
    return this.#command({ type: "cancel" }, "stop");
  }

  /**
   * Deletes the session on the server (`DELETE /sessions/:id`): a running turn is stopped
   * and open requests are cancelled, each call with its one result, then everything is
   * removed. On success the client closes; a failure is the client's error (source `delete`).
   */
  async deleteSession(): Promise<CommandResult> {
    const result = await this.#command({ type: "delete" }, "delete");
    if (result.ok) this.close();
    return result;
  }

  /** Closes the event stream for good: no more events, no reconnects. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#closeStream) this.#closeStream();
    else this.#dispatch({ type: "connection.changed", connection: "closed" });
  }

  async #start(given: string | undefined): Promise<void> {
    try {
      let sessionId = given;
      if (sessionId === undefined) {
        sessionId = (await this.#transport.createSession()).sessionId;
        this.#dispatch({ type: "session.created", sessionId });
      }
      const snapshot = await this.#transport.loadSnapshot(sessionId);
      this.#dispatch({ type: "snapshot.loaded", snapshot });
      if (this.#closed) return;
      this.#closeStream = this.#transport.openStream(sessionId, {
        lastSeq: () => this.#state.lastSeq,
        sink: {
          event: (event) => this.#dispatch({ type: "event", event }),
          events: (events) => this.#dispatch(...events.map((event) => ({ type: "event" as const, event }))),
          connection: (connection) => this.#dispatch({ type: "connection.changed", connection }),
          fail: (error) => this.#dispatch({ type: "connection.failed", error }),
        },
      });
    } catch (error) {
      this.#dispatch({ type: "connection.failed", error: toCommandError(error) });
      throw error;
    }
  }

  async #answer(response: InputResponse): Promise<CommandResult> {
    const { requestId } = response;
    await this.ready.catch(() => {}); // check against the hydrated request; #post reports a failed start
    const invalid = this.#checkAnswer(response);
    if (invalid) {
      this.#dispatch({ type: "request.failed", requestId, error: invalid });
      return { ok: false, error: invalid };
    }
    this.#dispatch({ type: "request.submitting", requestId });
    const result = await this.#post({ type: "responses", responses: [response] });
    if (!result.ok) this.#dispatch({ type: "request.failed", requestId, error: toRequestError(result.error) });
    return result;
  }

  #checkAnswer(response: InputResponse): RequestError | undefined {
    const tracked = this.#state.requests[response.requestId];
    if (response.action !== "accept" || !tracked) return undefined;
    const { request } = tracked;
    const value = request.kind === "approval" ? (response.value ?? {}) : response.value;
    const checked =
      value === undefined
        ? { ok: false as const, issues: [{ path: [], message: "Required" }] }
        : validateJsonSchema(request.answerSchema, value);
    if (checked.ok) return undefined;
    const summary = checked.issues.map((issue) => `${issue.path.join(".") || "answer"}: ${issue.message}`).join("; ");
    return {
      code: "invalid_answer",
      message: `The answer does not fit the answer schema of ${request.toolName} (${summary}).`,
      issues: checked.issues,
    };
  }

  async #command(command: AgentCommand, source: "send" | "stop" | "delete"): Promise<CommandResult> {
    if (command.type === "message") this.#dispatch({ type: "message.sending" });
    const result = await this.#post(command);
    if (!result.ok) this.#dispatch({ type: "command.failed", error: { ...result.error, source } });
    else if (command.type === "message") {
      const turnId = (result.body as { turnId?: unknown } | undefined)?.turnId;
      if (typeof turnId === "string") this.#dispatch({ type: "message.accepted", turnId });
    }
    return result;
  }

  async #post(command: AgentCommand): Promise<CommandResult> {
    let error: CommandError;
    try {
      await this.ready;
      const sessionId = this.#state.sessionId as string;
      const reply = await this.#transport.send(sessionId, command);
      return { ok: true, status: reply.status, body: reply.body };
    } catch (thrown) {
      error = toCommandError(thrown);
    }
    return { ok: false, error };
  }

  /** Applies actions in order and tells listeners once, with the state before the first. */
  #dispatch(...actions: ClientAction[]): void {
    const previous = this.#state;
    const next = actions.reduce(reduceClientState, previous);
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
}

/**
 * Creates a client for one session: attaches to `sessionId` (hydrating from its snapshot
 * first, so open requests show at once) or creates a new session, then follows its event
 * stream, reconnecting when it drops.
 * @example
 * const client = createAgentClient({ url: "/api/agent", sessionId: localStorage.sessionId });
 * await client.ready;
 * client.subscribe((state) => render(state.messages, state.pending));
 * await client.send("make me a poster");
 * // later, from a widget:
 * await client.respond(requestId, { templateId: "calm" });
 */
export function createAgentClient(options: AgentClientOptions): AgentClient {
  return new AgentClient(options);
}
