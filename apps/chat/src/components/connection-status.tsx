import type { AgentView } from "@hitl-kit/react";

/** Props of {@link ConnectionStatus}. */
export interface ConnectionStatusProps {
  agent: Pick<AgentView, "status" | "connection" | "outbox">;
}

/** The words for the session's status, as the header shows them. */
export function connectionLabel(agent: ConnectionStatusProps["agent"]): string {
  if (agent.connection === "closed") return "Offline";
  if (agent.connection === "offline") return "No network · reconnects when it is back";
  if (agent.connection === "paused") return "Paused while hidden";
  if (agent.status === "connecting" || agent.connection === "connecting") return "Connecting…";
  if (agent.status === "reconnecting" || agent.connection === "reconnecting") return "Reconnecting…";
  if (agent.outbox.some((message) => message.status === "sending")) return "Live · sending";
  if (agent.status === "waiting") return "Live · waiting for you";
  if (agent.status === "streaming" || agent.status === "submitting") return "Live · replying";
  return "Live";
}

/**
 * The event stream's state as a small badge: `role="status"`, `data-state` the
 * connection (`connecting | open | reconnecting | offline | paused | closed`), `data-status` the session's status.
 * @example
 * <ConnectionStatus agent={agent} />
 */
export function ConnectionStatus({ agent }: ConnectionStatusProps) {
  return (
    <p className="chat-connection" role="status" data-state={agent.connection} data-status={agent.status}>
      <span className="chat-connection__dot" aria-hidden="true" />
      {connectionLabel(agent)}
    </p>
  );
}
