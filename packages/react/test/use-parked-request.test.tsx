import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { Component, type ReactNode } from "react";
import { afterEach, describe, expect, it } from "vitest";
import {
  AgentProvider,
  createWidgetRegistry,
  ToolCallPart,
  type ToolCallProps,
  useAgent,
  useParkedRequest,
} from "../src/index.js";
import { startLiveServer, tools } from "./live-server.js";

let live: Awaited<ReturnType<typeof startLiveServer>> | undefined;
afterEach(async () => {
  cleanup();
  byName = false;
  toolName = "pick_template";
  await live?.close();
  live = undefined;
});

/** Whether the hand-drawn choice names its tool by name, and the name it gives. */
let byName = false;
let toolName: typeof tools.pickTemplate.name = "pick_template";

/** Every state the hand-drawn choice rendered, as `status` or `status:sent value`. */
const seen: string[] = [];

/** A template choice drawn by hand from the headless hook: no widget, no registry. */
function HandDrawnChoice({ requestId }: { requestId: string }) {
  // By the tool's name, typed by its definition's type (what an app that imports the
  // definition with `import type` does), or by the definition itself.
  const parked = useParkedRequest<typeof tools.pickTemplate>(requestId, {
    tool: byName ? toolName : tools.pickTemplate,
  });
  if (!parked) return null;
  const shown = parked.status === "submitting" ? `submitting:${JSON.stringify(parked.sent)}` : parked.status;
  if (seen.at(-1) !== shown) seen.push(shown);
  return (
    <section aria-label="Choice" data-state={parked.status}>
      {parked.status === "resolved" ? <p>Chose {parked.resolution.value.templateId}</p> : null}
      {parked.status === "declined" ? <p>Declined: {parked.resolution.reason}</p> : null}
      {parked.status === "submitting" && parked.sent.action === "accept" ? (
        <p>Sending {parked.sent.value.templateId}…</p>
      ) : null}
      {parked.status === "error" ? <p role="alert">{parked.error.message}</p> : null}
      {parked.status === "pending" || parked.status === "error"
        ? parked.request.input.templates.map((id) => (
            <button key={id} type="button" onClick={() => parked.respond({ templateId: id })}>
              {id}
            </button>
          ))
        : null}
      <button type="button" onClick={() => parked.decline("None of these.")}>
        decline
      </button>
    </section>
  );
}

/** Catches what its children throw while rendering, and reports it. */
class Refusals extends Component<{ onError: (error: unknown) => void; children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  override componentDidCatch(error: unknown) {
    this.props.onError(error);
  }
  override render() {
    return this.state.failed ? null : this.props.children;
  }
}

function Chat() {
  const agent = useAgent();
  const requestId = agent.pending[0]?.request.requestId ?? Object.keys(agent.requests)[0];
  return (
    <main data-status={agent.status}>
      {requestId ? <HandDrawnChoice requestId={requestId} /> : null}
      <button type="button" onClick={() => agent.send("poster")}>
        send
      </button>
    </main>
  );
}

const pickThenDone = [
  { text: "Pick one.", toolCalls: [{ toolName: "pick_template", input: { templates: ["calm", "retired"] } }] },
  { text: "Done." },
];

async function park(url: string) {
  render(
    <AgentProvider url={url}>
      <Chat />
    </AgentProvider>,
  );
  fireEvent.click(await screen.findByRole("button", { name: "send" }));
  return screen.findByRole("region", { name: "Choice" });
}

const idle = () =>
  waitFor(() => expect(document.querySelector("main")?.getAttribute("data-status")).toBe("idle"), { timeout: 5000 });

describe("useParkedRequest, against a real server", () => {
  it("gives a hand-drawn UI the request's state, what was sent, and its resolution", async () => {
    live = await startLiveServer(pickThenDone);
    const choice = await park(live.url);
    expect(choice.getAttribute("data-state")).toBe("pending");
    seen.length = 0;
    fireEvent.click(screen.getByRole("button", { name: "calm" }));
    await screen.findByText("Chose calm");
    expect(choice.getAttribute("data-state")).toBe("resolved");
    expect(seen).toEqual(['submitting:{"action":"accept","value":{"templateId":"calm"}}', "resolved"]);
    await idle();
  });

  it("carries the server's refusal as the error state and stays answerable", async () => {
    live = await startLiveServer(pickThenDone);
    const choice = await park(live.url);
    fireEvent.click(screen.getByRole("button", { name: "retired" }));
    expect((await screen.findByRole("alert")).textContent).toMatch(/does not fit/);
    expect(choice.getAttribute("data-state")).toBe("error");
    fireEvent.click(screen.getByRole("button", { name: "calm" }));
    await screen.findByText("Chose calm");
    await idle();
  });

  it("declines with the reason", async () => {
    live = await startLiveServer(pickThenDone);
    const choice = await park(live.url);
    fireEvent.click(screen.getByRole("button", { name: "decline" }));
    await screen.findByText("Declined: None of these.");
    expect(choice.getAttribute("data-state")).toBe("declined");
    await idle();
  });

  it("takes the tool by its name alone, and refuses a request of another tool, naming both", async () => {
    byName = true;
    live = await startLiveServer(pickThenDone);
    await park(live.url);
    fireEvent.click(screen.getByRole("button", { name: "calm" }));
    await screen.findByText("Chose calm");
    await idle();
    cleanup();

    toolName = "pick_paper" as typeof toolName;
    const refused: unknown[] = [];
    render(
      <AgentProvider url={live.url}>
        <Refusals onError={(error) => refused.push(error)}>
          <Chat />
        </Refusals>
      </AgentProvider>,
    );
    fireEvent.click(await screen.findByRole("button", { name: "send" }));
    await waitFor(() => expect(refused.length).toBeGreaterThan(0));
    expect(String(refused[0])).toMatch(/was given the tool "pick_paper", but the request belongs to "pick_template"/);
  });

  it("names the fix when there is neither an agent nor a provider", () => {
    function Orphan() {
      useParkedRequest("req_1");
      return null;
    }
    expect(() => render(<Orphan />)).toThrow(
      "useParkedRequest() needs a client: pass agent={useAgent(...)} or render it inside an <AgentProvider>.",
    );
  });
});

function StockCount(props: ToolCallProps<{ sku: string }>) {
  return (
    <p role="status" aria-label="Stock" data-state={props.state}>
      {props.state === "running" ? `Counting ${props.input.sku}…` : null}
      {props.state === "done" ? `${(props.output as { count: number }).count} in stock` : null}
      {props.state === "failed" ? `Could not count (${props.outcome})` : null}
    </p>
  );
}

function Transcript({ renderers }: { renderers: boolean }) {
  const agent = useAgent();
  const registry = renderers ? createWidgetRegistry<typeof tools>().addToolCall("check_stock", StockCount) : undefined;
  return (
    <main data-status={agent.status}>
      {agent.messages.flatMap((message) =>
        message.parts.map((part) =>
          part.type === "tool" ? (
            <ToolCallPart key={part.toolCallId} part={part} {...(registry ? { widgets: registry } : {})} />
          ) : null,
        ),
      )}
      <button type="button" onClick={() => agent.send("stock?")}>
        send
      </button>
    </main>
  );
}

describe("<ToolCallPart> for calls that do not park, against a real server", () => {
  it("shows a server tool running, then done, with the registry's renderer", async () => {
    live = await startLiveServer([
      { toolCalls: [{ toolName: "check_stock", input: { sku: "A2-calm" } }] },
      { text: "ok" },
    ]);
    render(
      <AgentProvider url={live.url}>
        <Transcript renderers />
      </AgentProvider>,
    );
    fireEvent.click(await screen.findByRole("button", { name: "send" }));
    const stock = await screen.findByRole("status", { name: "Stock" });
    expect(stock.getAttribute("data-state")).toBe("running");
    expect(stock.textContent).toBe("Counting A2-calm…");
    await waitFor(() => expect(stock.getAttribute("data-state")).toBe("done"));
    expect(stock.textContent).toBe("12 in stock");
    await idle();
  });

  it("shows a failed call with the default card: its state, outcome and what happened", async () => {
    live = await startLiveServer([{ toolCalls: [{ toolName: "check_stock", input: { sku: "B0" } }] }, { text: "ok" }]);
    render(
      <AgentProvider url={live.url}>
        <Transcript renderers={false} />
      </AgentProvider>,
    );
    fireEvent.click(await screen.findByRole("button", { name: "send" }));
    const card = await waitFor(() => {
      const found = document.querySelector<HTMLElement>('[data-tool="check_stock"]');
      expect(found?.getAttribute("data-state")).toBe("failed");
      return found!;
    });
    expect(card.getAttribute("data-outcome")).toBe("error");
    expect(screen.getByRole("status").textContent).toBe("Failed");
    expect(card.textContent).toContain("Check stock");
    expect(card.textContent).toContain("No poster has the sku B0.");
    await idle();
  });
});
