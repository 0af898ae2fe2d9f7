import { type AgentClient, createAgentClient, type ReplayTransport } from "@hitl-kit/client";
import { AgentProvider } from "@hitl-kit/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, render } from "@testing-library/react";
import { Transcript } from "../src/components/transcript.js";
import { chatWidgets } from "../src/widgets/chat-widgets.js";

/** Renders the demo's transcript on a replayed session, as the app does, once its snapshot is loaded. */
export async function renderReplayedTranscript(
  replay: ReplayTransport,
): Promise<{ client: AgentClient; container: HTMLElement }> {
  const client = createAgentClient({ transport: replay, sessionId: replay.sessionId });
  const { container } = render(
    <QueryClientProvider client={new QueryClient()}>
      <AgentProvider client={client}>
        <Transcript widgets={chatWidgets} />
      </AgentProvider>
    </QueryClientProvider>,
  );
  await act(() => client.ready);
  return { client, container };
}
