import "@hitl-kit/widgets/styles.css";
import "../app.css";
import "../chat-panel.css";
import "../chat-parts.css";
import "../responsive.css";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { UseChatPage } from "./use-chat-page.js";

const queryClient = new QueryClient({ defaultOptions: { queries: { refetchOnWindowFocus: false, retry: 1 } } });

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <UseChatPage />
    </QueryClientProvider>
  </StrictMode>,
);
