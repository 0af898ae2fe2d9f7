import { type ApiClient, plainErrorMessage, type SessionSummary } from "@hitl-kit/client";
import { deleteSessionMutationOptions, sessionHistoryQueryOptions } from "@hitl-kit/react/query";
import { useMutation, useQuery } from "@tanstack/react-query";
import { hashForSession } from "../session/use-session-id.js";

/** Props of {@link SessionSidebar}. */
export interface SessionSidebarProps {
  api: ApiClient;
  currentId: string | undefined;
  /** Starts a new chat. */
  onNew: () => void;
  /** Called after a session link is followed (a narrow screen closes the drawer). */
  onNavigate?: () => void;
  /** Called after a session was deleted (the app leaves it when it was the current one). */
  onDeleted?: (sessionId: string) => void;
  /** Why a new chat could not be started. */
  error?: string;
  /** The first message of another chat that has not reached the server yet (kept for its next visit), if any. */
  unsent?: (sessionId: string) => string | undefined;
}

const when = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric", hour: "numeric", minute: "2-digit" });

const statusLabels: Record<string, string> = { waiting: "Waiting for you", running: "Replying" };

/**
 * The session history, newest first (`sessionHistoryQueryOptions`), as links to
 * `#session=<id>`; the current one has `aria-current="page"`. A "New chat" button on top,
 * and a delete button beside each chat (`deleteSessionMutationOptions`), after a confirm. A
 * chat with a message still to send says so (`unsent`), and is listed even before it has a title.
 * @example
 * <SessionSidebar api={createApiClient({ url: "/api/agent" })} currentId={sessionId} onNew={startNew} />
 */
export function SessionSidebar({ api, currentId, onNew, onNavigate, onDeleted, error, unsent }: SessionSidebarProps) {
  const history = useQuery(sessionHistoryQueryOptions(api));
  const remove = useMutation(deleteSessionMutationOptions(api));
  const deleteSession = (session: SessionSummary) => {
    const name = session.title ?? "this chat";
    if (!confirm(`Delete “${name}”? Its open questions are cancelled and it cannot be brought back.`)) return;
    remove.mutate(session.sessionId, { onSuccess: () => onDeleted?.(session.sessionId) });
  };
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
          Could not load your chats: {plainErrorMessage(history.error)}
        </p>
      ) : null}
      {remove.isError ? (
        <p className="chat-sidebar__error" role="alert">
          Could not delete the chat: {plainErrorMessage(remove.error)}
        </p>
      ) : null}
      <ul className="chat-sidebar__list">
        {(history.data ?? [])
          .map((session) => ({ session, unsent: unsent?.(session.sessionId) }))
          // A chat nobody wrote in yet has no title: only the current one, or one whose message is still to send, is worth listing.
          .filter(
            ({ session, unsent }) =>
              session.title !== undefined || unsent !== undefined || session.sessionId === currentId,
          )
          .map(({ session, unsent }) => (
            <SessionLink
              key={session.sessionId}
              session={session}
              unsent={unsent}
              current={session.sessionId === currentId}
              onNavigate={onNavigate}
              onDelete={() => deleteSession(session)}
              deleting={remove.isPending && remove.variables === session.sessionId}
            />
          ))}
      </ul>
    </nav>
  );
}

function SessionLink(props: {
  session: SessionSummary;
  unsent: string | undefined;
  current: boolean;
  onNavigate: (() => void) | undefined;
  onDelete: () => void;
  deleting: boolean;
}) {
  const { session, current } = props;
  // A running tool's question waits for the person too (`pending`), though the turn runs.
  const status =
    props.unsent !== undefined ? "Not sent" : session.pending > 0 ? statusLabels.waiting : statusLabels[session.status];
  const name = session.title ?? props.unsent ?? "New chat";
  return (
    <li className="chat-sidebar__item">
      <a
        className="chat-sidebar__link"
        href={hashForSession(session.sessionId)}
        aria-current={current ? "page" : undefined}
        data-status={session.status}
        onClick={props.onNavigate}
      >
        <span className="chat-sidebar__title">{name}</span>
        <span className="chat-sidebar__meta">
          {when.format(new Date(session.createdAt))}
          {status ? ` · ${status}` : ""}
        </span>
      </a>
      <button
        type="button"
        className="chat-sidebar__delete"
        aria-label={`Delete ${name}`}
        title="Delete this chat"
        disabled={props.deleting}
        onClick={props.onDelete}
      >
        <span aria-hidden="true">×</span>
      </button>
    </li>
  );
}
