import { unsentMessages } from "@hitl-kit/client";
import { AgentProvider } from "@hitl-kit/react";
import { sessionHistoryQueryOptions } from "@hitl-kit/react/query";
import { useQuery } from "@tanstack/react-query";
import { ChatPanel } from "./components/chat-panel.js";
import { SessionSidebar } from "./components/session-sidebar.js";
import { Welcome } from "./components/welcome.js";
import { useSessionId } from "./session/use-session-id.js";
import { agentApi } from "./shared/endpoint.js";
import { useChatsDrawer } from "./use-chats-drawer.js";
import { chatWidgets } from "./widgets/chat-widgets.js";

/**
 * The demo chat: the sessions sidebar (a drawer on narrow screens, see `useChatsDrawer`)
 * and the current session, whose id lives in the URL hash and localStorage.
 */
export function App() {
  const { sessionId, error, notice, startNew } = useSessionId();
  const { open: drawerOpen, setOpen: setDrawerOpen, closeToToggle, drawerRef, toggleRef } = useChatsDrawer();
  const history = useQuery(sessionHistoryQueryOptions(agentApi));
  const title = history.data?.find((session) => session.sessionId === sessionId)?.title;
  const newChat = () => {
    setDrawerOpen(false);
    void startNew();
  };

  return (
    <div className="chat-app" data-drawer={drawerOpen ? "open" : "closed"}>
      <div className="chat-app__sidebar" id="chat-sidebar" ref={drawerRef}>
        <SessionSidebar
          api={agentApi}
          currentId={sessionId}
          onNew={newChat}
          onNavigate={() => setDrawerOpen(false)}
          onDeleted={(deleted) => {
            if (deleted === sessionId) newChat();
          }}
          error={error}
          // The open chat's own transcript shows its messages as they are; the list marks the others.
          unsent={(id) => (id === sessionId ? undefined : unsentMessages(window.sessionStorage, id)[0]?.text)}
        />
      </div>
      <button
        type="button"
        className="chat-app__scrim"
        aria-label="Close chats"
        tabIndex={-1}
        onClick={closeToToggle}
      />
      {sessionId ? (
        <AgentProvider key={sessionId} api={agentApi} sessionId={sessionId} outboxStorage={window.sessionStorage}>
          <ChatPanel
            api={agentApi}
            widgets={chatWidgets}
            onNew={newChat}
            title={title}
            notice={notice}
            empty={(focusComposer) => <Welcome onSend={focusComposer} />}
            // Behind the open drawer, the chat takes no focus and no clicks: Tab stays in the drawer.
            inert={drawerOpen}
            headerStart={
              <button
                ref={toggleRef}
                type="button"
                className="chat-button chat-app__menu"
                aria-label="Chats"
                aria-controls="chat-sidebar"
                aria-expanded={drawerOpen}
                onClick={() => setDrawerOpen((open) => !open)}
              >
                <span aria-hidden="true">☰</span>
              </button>
            }
          />
        </AgentProvider>
      ) : (
        <main className="chat-panel chat-panel--starting" aria-label="Chat">
          <p role="status">{error ?? "Starting a new chat…"}</p>
        </main>
      )}
    </div>
  );
}
