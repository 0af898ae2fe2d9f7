import type { AgentClientOptions } from "@hitl-kit/client";
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { createWidgetRegistry, ParkedRequest, useAgent, type WidgetProps } from "../src/index.js";
import { startLiveServer, type tools } from "./live-server.js";

let live: Awaited<ReturnType<typeof startLiveServer>> | undefined;
afterEach(async () => {
  cleanup();
  await live?.close();
  live = undefined;
});

function TemplatePicker({
  request,
  respond,
  status,
  error,
  resolution,
}: WidgetProps<{ templates: string[] }, { templateId: string }>) {
  return (
    <fieldset data-state={status} aria-label="Templates">
      {request.input.templates.map((id) => (
        <button key={id} type="button" disabled={status === "submitting"} onClick={() => respond({ templateId: id })}>
          {id}
        </button>
      ))}
      {error && <p role="alert">{error.message}</p>}
      {resolution?.value && <p>Chose {resolution.value.templateId}</p>}
    </fieldset>
  );
}

const widgets = createWidgetRegistry<typeof tools>().add("pick_template", TemplatePicker);

function Chat(props: AgentClientOptions & { onSession?: (id: string) => void }) {
  const { onSession, ...options } = props;
  const agent = useAgent(options);
  if (agent.sessionId) onSession?.(agent.sessionId);
  return (
    <main data-status={agent.status}>
      {agent.messages.map((message) => (
        <div key={message.id} data-role={message.role}>
          {message.parts.map((part, index) =>
            part.type === "tool" && part.requestId ? (
              <ParkedRequest key={part.requestId} requestId={part.requestId} agent={agent} widgets={widgets} />
            ) : part.type === "text" ? (
              // biome-ignore lint/suspicious/noArrayIndexKey: parts only grow at the end
              <p key={index}>{part.text}</p>
            ) : null,
          )}
        </div>
      ))}
      <button type="button" onClick={() => agent.send("poster")}>
        send
      </button>
    </main>
  );
}

function Bare() {
  useAgent();
  return null;
}

const pickThenDone = [
  { text: "Pick one.", toolCalls: [{ toolName: "pick_template", input: { templates: ["calm", "retired"] } }] },
  { text: "Calm it is." },
];

async function sendAndPark() {
  fireEvent.click(await screen.findByRole("button", { name: "send" }));
  return screen.findByRole("group", { name: "Templates" });
}

describe("useAgent with the widget registry, against a real server", () => {
  it("renders the registered widget for a parked request and completes the turn from its answer", async () => {
    live = await startLiveServer(pickThenDone);
    render(<Chat url={live.url} />);
    const picker = await sendAndPark();
    expect(picker.getAttribute("data-state")).toBe("pending");
    fireEvent.click(screen.getByRole("button", { name: "calm" }));
    await screen.findByText("Calm it is.");
    expect(screen.getByText("Chose calm")).toBeTruthy();
    expect(picker.getAttribute("data-state")).toBe("resolved");
    // The text and the turn's end may arrive in separate bursts.
    await waitFor(() => expect(document.querySelector("main")?.getAttribute("data-status")).toBe("idle"));
  });

  it("renders the fallback form for an unregistered tool, and declines from it", async () => {
    live = await startLiveServer([{ toolCalls: [{ toolName: "pick_size", input: {} }] }, { text: "No size then." }]);
    render(<Chat url={live.url} />);
    fireEvent.click(await screen.findByRole("button", { name: "send" }));
    const decline = await screen.findByRole("button", { name: /decline/i });
    expect(screen.getByRole("radio", { name: /small/i })).toBeTruthy();
    fireEvent.click(decline);
    await screen.findByText("No size then.");
  });

  it("reopens the widget with the server's message when the server refuses the answer (422)", async () => {
    live = await startLiveServer(pickThenDone);
    render(<Chat url={live.url} />);
    const picker = await sendAndPark();
    fireEvent.click(screen.getByRole("button", { name: "retired" }));
    expect((await screen.findByRole("alert")).textContent).toMatch(
      /does not fit the answer schema of pick_template \(templateId: .+\)/,
    );
    expect(picker.getAttribute("data-state")).toBe("error");
    fireEvent.click(screen.getByRole("button", { name: "calm" }));
    await screen.findByText("Calm it is.");
  });

  it("shows every word once after the stream drops mid-text and reconnects", async () => {
    const text = Array.from({ length: 60 }, (_, i) => `w${i}`).join(" ");
    live = await startLiveServer([{ text }], { chunkDelayMs: 2 });
    let dropped = false;
    const flakyFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (dropped || !String(input).includes("/events")) return response;
      dropped = true;
      let chunks = 0;
      const reader = response.body!.getReader();
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { done, value } = await reader.read();
          if (done || ++chunks > 12) {
            // Leave the real body to drain: cancelling it mid-stream trips a bug in happy-dom's fetch.
            void (async () => {
              while (!(await reader.read().catch(() => ({ done: true }))).done);
            })();
            return controller.error(new TypeError("network dropped"));
          }
          controller.enqueue(value);
        },
      });
      return new Response(body, { status: response.status, headers: response.headers });
    };
    render(<Chat url={live.url} fetch={flakyFetch} reconnect={{ initialDelayMs: 10, maxDelayMs: 50 }} />);
    fireEvent.click(await screen.findByRole("button", { name: "send" }));
    await waitFor(() => expect(document.querySelector("main")?.getAttribute("data-status")).toBe("idle"), {
      timeout: 5000,
    });
    expect(dropped).toBe(true);
    expect(document.querySelector('[data-role="assistant"] p')?.textContent).toBe(text);
  });

  it("shows a parked request again after a reload, and answering it completes the turn", async () => {
    live = await startLiveServer(pickThenDone);
    let sessionId = "";
    const first = render(<Chat url={live.url} onSession={(id) => (sessionId = id)} />);
    await sendAndPark();
    first.unmount();

    render(<Chat url={live.url} sessionId={sessionId} />);
    const picker = await screen.findByRole("group", { name: "Templates" });
    expect(picker.getAttribute("data-state")).toBe("pending");
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "calm" })));
    await screen.findByText("Calm it is.");
  });

  it("sends each request with the latest render's headers and fetch (a token kept in state, refreshed)", async () => {
    live = await startLiveServer(pickThenDone);
    const sent: string[] = [];
    const via = (name: string) => (input: string, init?: RequestInit) => {
      sent.push(
        `${name} ${init?.method ?? "GET"} ${new URL(input).pathname.split("/").at(-1)} ${new Headers(init?.headers).get("authorization")}`,
      );
      return fetch(input, init);
    };
    const first = via("first");
    const { rerender } = render(<Chat url={live.url} fetch={first} headers={{ authorization: "Bearer one" }} />);
    await sendAndPark();
    expect(sent).toContain("first POST messages Bearer one");

    const second = via("second");
    rerender(<Chat url={live.url} fetch={second} headers={() => ({ authorization: "Bearer two" })} />);
    fireEvent.click(screen.getByRole("button", { name: "calm" }));
    await screen.findByText("Calm it is.");
    expect(sent.filter((line) => line.includes("POST responses"))).toEqual(["second POST responses Bearer two"]);
  });

  it("disposes of its client when the chat unmounts (a sign-out): a message still being resent does not go out under the next account", async () => {
    live = await startLiveServer(pickThenDone);
    let token = "alice";
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const creations: string[] = [];
    // Alice's first creation hangs (a flaky network); what comes after goes through.
    const flaky = async (input: string, init?: RequestInit) => {
      if (init?.method === "POST" && new URL(input).pathname.endsWith("/sessions")) {
        creations.push(new Headers(init.headers).get("authorization") ?? "");
        if (creations.length === 1) {
          await gate;
          throw new TypeError("fetch failed");
        }
      }
      return fetch(input, init);
    };
    const headers = () => ({ authorization: `Bearer ${token}` });
    const { rerender } = render(<Chat key="alice" url={live.url} fetch={flaky} headers={headers} />);
    fireEvent.click(await screen.findByRole("button", { name: "send" }));
    await waitFor(() => expect(creations).toEqual(["Bearer alice"]));
    // Signed out: Bob's chat replaces Alice's, and the network comes back.
    token = "bob";
    rerender(<Chat key="bob" url={live.url} fetch={flaky} headers={headers} />);
    await act(() => Promise.resolve());
    release();
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // past the first resends' waits
    expect(creations).toEqual(["Bearer alice"]);
    expect((await live.log()).requests.filter((request) => request.startsWith("POST"))).toEqual([]);
  });

  it("says what to do when there is neither a url nor a provider", () => {
    expect(() => render(<Bare />)).toThrow("useAgent() needs a url or an <AgentProvider>");
  });
});
