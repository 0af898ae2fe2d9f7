import { type AgentEndpoint, type SessionListItem, sessionHistoryQueryOptions } from "@hitl-kit/react/query";
import { useQuery } from "@tanstack/react-query";
import { hashForSession } from "../session/use-session-id.js";

/** Props of {@link SessionSidebar}. */
export interface SessionSidebarProps {
  endpoint: AgentEndpoint;
  currentId: string | undefined;
  /** Starts a new chat. */
  onNew: () => void;
  /** Called after a session link is followed (a narrow screen closes the drawer). */
  onNavigate?: () => void;
  /** Why a new chat could not be started. */
  error?: string;
}

const when = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric", hour: "numeric", minute: "2-digit" });

const statusLabels: Record<string, string> = { waiting: "Waiting for you", running: "Replying" };

/**
 * The session history, newest first (`sessionHistoryQueryOptions`), as links to
 * `#session=<id>`; the current one has `aria-current="page"`. A "New chat" button on top.
 * @example
 * <SessionSidebar endpoint={{ url: "/api/agent" }} currentId={sessionId} onNew={startNew} />
 */
export function SessionSidebar({ endpoint, currentId, onNew, onNavigate, error }: SessionSidebarProps) {
  const history = useQuery(sessionHistoryQueryOptions(endpoint));
  return (
    <nav className="chat-sidebar" aria-label="Chats">
      <div className="chat-sidebar__brand">
        <span className="chat-sidebar__logo" aria-hidden="true">
          h
        </span>
        hitl-kit chat
      </div>
      <button type="button" className="chat-button chat-button--new" onClick={onNew}>
        + New chat
      </button>
      {error ? (
        <p className="chat-sidebar__error" role="alert">
          {error}
        </p>
      ) : null}
      <h2 className="chat-sidebar__heading">Recent</h2>
      {history.isError ? (
        <p className="chat-sidebar__error" role="alert">
          Could not load your chats: {history.error.message}
        </p>
      ) : null}
      <ul className="chat-sidebar__list">
        {(history.data ?? [])
          // A chat nobody wrote in yet has no title; only the current one is worth listing.
          .filter((session) => session.title !== undefined || session.sessionId === currentId)
          .map((session) => (
            <SessionLink
              key={session.sessionId}
              session={session}
              current={session.sessionId === currentId}
              onNavigate={onNavigate}
            />
          ))}
      </ul>
    </nav>
  );
}

function SessionLink(props: { session: SessionListItem; current: boolean; onNavigate: (() => void) | undefined }) {
  const { session, current } = props;
  const status = statusLabels[session.status];
  return (
    <li>
      <a
        className="chat-sidebar__link"
        href={hashForSession(session.sessionId)}
        aria-current={current ? "page" : undefined}
        data-status={session.status}
        onClick={props.onNavigate}
      >
        <span className="chat-sidebar__title">{session.title ?? "New chat"}</span>
        <span className="chat-sidebar__meta">
          {when.format(new Date(session.createdAt))}
          {status ? ` · ${status}` : ""}
        </span>
      </a>
    </li>
  );
}
