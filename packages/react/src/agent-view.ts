import type {
  AgentClient,
  AnswerTo,
  ClientState,
  CommandResult,
  OutgoingMessage,
  RequestOf,
  RequestRef,
  RequestStateOf,
} from "@hitl-kit/client";
import type { ToolName, ToolSet } from "@hitl-kit/protocol";

/**
 * What `useAgent` returns: the session's state and the verbs that act on it. With a tool
 * map (`useAgent<typeof tools>()`), `pending` and `requests` are typed per tool and
 * `respond(request, value)` takes that request's tool's answer.
 */
export interface AgentView<Tools extends ToolSet = ToolSet> extends Omit<ClientState, "requests" | "pending"> {
  /** Every request seen, by id, settled ones included; a union over the tools, on `status`. */
  requests: Readonly<Record<string, RequestStateOf<Tools>>>;
  /** The requests still open (`pending`, `submitting` or `error`), in the order they were asked. */
  pending: readonly RequestStateOf<Tools>[];
  /** The framework-free client behind this view. */
  client: AgentClient;
  /** Sends the person's message, starting a turn; it is in `outbox` until the stream shows it. Send a failed one again with its `key`. */
  send: (text: string, options?: { key?: string }) => Promise<CommandResult>;
  /** Gives up a failed message of `outbox` (to edit it, or let it go); returns it. */
  discard: (key: string) => OutgoingMessage | undefined;
  /**
   * Answers a request with a value of its tool's answer type (checked against the answer
   * schema before it is sent). Name the request by its state or the request itself to
   * type the value; an id alone accepts any tool's answer.
   * @example
   * for (const state of agent.pending) {
   *   if (state.request.toolName === "pick_template") agent.respond(state.request, { templateId: "calm" });
   * }
   */
  respond<Name extends ToolName<Tools>>(
    request: RequestOf<Name> | string,
    value: AnswerTo<Tools, Name>,
  ): Promise<CommandResult>;
  /** Declines a request (for an approval: denies it), optionally saying why. */
  decline(request: RequestOf<ToolName<Tools>> | string, reason?: string): Promise<CommandResult>;
  /** Cancels a request: its tool call ends as cancelled. */
  cancel(request: RequestOf<ToolName<Tools>> | string): Promise<CommandResult>;
  /** Cancels the running or parked turn (`POST /sessions/:id/cancel`); its open requests are cancelled. */
  cancelTurn: () => Promise<CommandResult>;
  /** Loads the messages before those shown; `session.before` is set while earlier ones exist. */
  loadEarlier: (limit?: number) => Promise<CommandResult>;
}

type Verbs = Omit<AgentView, keyof ClientState>;

const views = new WeakMap<ClientState, AgentView>();
const verbs = new WeakMap<AgentClient, Verbs>();

/** The view of a client's state: the same object for the same state, so it can be compared. */
export function agentView(client: AgentClient, state: ClientState): AgentView {
  let view = views.get(state);
  if (!view) {
    let bound = verbs.get(client);
    if (!bound) {
      bound = {
        client,
        send: (text, options) => client.send(text, options),
        discard: (key) => client.discard(key),
        respond: (request: RequestRef, value: unknown) => client.respond(request, value),
        decline: (request: RequestRef, reason?: string) => client.decline(request, reason),
        cancel: (request: RequestRef) => client.cancel(request),
        cancelTurn: () => client.cancelTurn(),
        loadEarlier: (limit) => client.loadEarlier(limit),
      };
      verbs.set(client, bound);
    }
    view = { ...state, ...bound } as AgentView;
    views.set(state, view);
  }
  return view;
}
