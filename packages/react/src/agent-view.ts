import type { AgentClient, ClientState, CommandResult } from "@hitl-kit/client";

/** What `useAgent` returns: the session's state and the verbs that act on it. */
export interface AgentView extends ClientState {
  /** The framework-free client behind this view. */
  client: AgentClient;
  send: (text: string) => Promise<CommandResult>;
  respond: (requestId: string, value: unknown) => Promise<CommandResult>;
  decline: (requestId: string, reason?: string) => Promise<CommandResult>;
  cancel: (requestId: string) => Promise<CommandResult>;
  /** Stops the running or parked turn. */
  stop: () => Promise<CommandResult>;
  /** Loads the messages before those shown; `session.before` is set while earlier ones exist. */
  loadEarlier: (limit?: number) => Promise<CommandResult>;
}

const views = new WeakMap<ClientState, AgentView>();
const verbs = new WeakMap<AgentClient, Omit<AgentView, keyof ClientState>>();

/** The view of a client's state: the same object for the same state, so it can be compared. */
export function agentView(client: AgentClient, state: ClientState): AgentView {
  let view = views.get(state);
  if (!view) {
    let bound = verbs.get(client);
    if (!bound) {
      bound = {
        client,
        send: (text) => client.send(text),
        respond: (requestId, value) => client.respond(requestId, value),
        decline: (requestId, reason) => client.decline(requestId, reason),
        cancel: (requestId) => client.cancel(requestId),
        stop: () => client.stop(),
        loadEarlier: (limit) => client.loadEarlier(limit),
      };
      verbs.set(client, bound);
    }
    view = { ...state, ...bound };
    views.set(state, view);
  }
  return view;
}
