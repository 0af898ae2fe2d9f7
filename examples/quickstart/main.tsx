import "@hitl-kit/widgets/styles.css";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { Chat } from "./chat.js";

// The session a reload continues (chat.tsx keeps it in the URL).
const sessionId = new URLSearchParams(location.hash.slice(1)).get("session") ?? undefined;

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <Chat {...(sessionId ? { sessionId } : {})} />
  </StrictMode>,
);
