import { useChat } from "@ai-sdk/react";
import { createWidgetRegistry, type WidgetProps } from "@hitl-kit/react";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import type { UIMessage } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import type { pickTemplate } from "../../server/test/tools.js";
import { type HitlDataTypes, hitlAnswersComplete } from "../src/index.js";
import { HitlRequestPart } from "../src/react/index.js";
import { setups, startApp } from "./setups.js";

type Message = UIMessage<unknown, HitlDataTypes>;

function TemplatePicker({
  request,
  respond,
  status,
  resolution,
}: WidgetProps<{ templates: string[] }, { templateId: string }>) {
  return (
    <fieldset data-state={status} aria-label="Templates">
      {request.input.templates.map((id) => (
        <button key={id} type="button" onClick={() => respond({ templateId: id })}>
          {id}
        </button>
      ))}
      <button type="button" onClick={() => respond({ templateId: "" })}>
        nothing
      </button>
      {resolution?.value ? <p>Chose {resolution.value.templateId}</p> : null}
    </fieldset>
  );
}

const widgets = createWidgetRegistry<[typeof pickTemplate]>().add("pick_template", TemplatePicker);

function ChatApp({ transport }: { transport: ReturnType<Awaited<ReturnType<typeof startApp>>["transport"]> }) {
  const chat = useChat<Message>({ transport, sendAutomaticallyWhen: hitlAnswersComplete });
  return (
    <main data-status={chat.status}>
      {chat.messages.map((message) => (
        <div key={message.id} data-role={message.role}>
          {message.parts.map((part, index) =>
            part.type === "data-hitl-request" ? (
              <HitlRequestPart key={part.id} message={message} data={part.data} chat={chat} widgets={widgets} />
            ) : part.type === "text" ? (
              // biome-ignore lint/suspicious/noArrayIndexKey: parts only grow at the end
              <p key={index}>{part.text}</p>
            ) : null,
          )}
        </div>
      ))}
      <button type="button" onClick={() => void chat.sendMessage({ text: "make me a poster" })}>
        send
      </button>
      <button
        type="button"
        onClick={() => {
          // An answer that skips the widget's check: only the server refuses it.
          const part = chat.messages.at(-1)?.parts.find((p) => p.type === "tool-pick_template");
          if (part && "toolCallId" in part) {
            void chat.addToolOutput({ tool: "pick_template", toolCallId: part.toolCallId, output: { templateId: 7 } });
          }
        }}
      >
        answer badly
      </button>
    </main>
  );
}

const scripted = setups[0]!;

describe("<HitlRequestPart> in a useChat app", () => {
  let app: Awaited<ReturnType<typeof startApp>> | undefined;
  afterEach(async () => {
    cleanup();
    await app?.close();
  });

  it("renders the registered widget, refuses an answer that misses the schema, and sends a good one", async () => {
    app = await startApp(scripted, [
      { text: "Pick one.", toolCalls: [{ name: "pick_template", input: { templates: ["a", "b"] } }] },
      { text: "Made it with b." },
    ]);
    render(<ChatApp transport={app.transport()} />);
    fireEvent.click(screen.getByRole("button", { name: "send" }));
    const picker = await screen.findByRole("group", { name: "Templates" });
    expect(picker.dataset.state).toBe("pending");

    fireEvent.click(screen.getByRole("button", { name: "nothing" }));
    await waitFor(() => expect(picker.dataset.state).toBe("error"));

    fireEvent.click(screen.getByRole("button", { name: "b" }));
    await screen.findByText("Made it with b.");
    await screen.findByText("Chose b");
    expect(screen.getByRole("group", { name: "Templates" }).dataset.state).toBe("resolved");
    expect(app.log.refused).toEqual([]);
  });

  it("shows the server's refusal of an answer on the widget, which stays answerable", async () => {
    app = await startApp(scripted, [
      { text: "Pick one.", toolCalls: [{ name: "pick_template", input: { templates: ["a", "b"] } }] },
      { text: "Made it with a." },
    ]);
    render(<ChatApp transport={app.transport()} />);
    fireEvent.click(screen.getByRole("button", { name: "send" }));
    const picker = await screen.findByRole("group", { name: "Templates" });
    fireEvent.click(screen.getByRole("button", { name: "answer badly" }));
    await waitFor(() => expect(picker.dataset.state).toBe("error"));
    const [session] = await app.runtime.listSessions();
    expect((await app.runtime.getSnapshot(session!.sessionId)).pending).toHaveLength(1);

    fireEvent.click(screen.getByRole("button", { name: "a" }));
    await screen.findByText("Made it with a.");
    expect(screen.getByRole("group", { name: "Templates" }).dataset.state).toBe("resolved");
  });

  it("renders the fallback form for an approval, and Deny declines it once", async () => {
    app = await startApp(scripted, [
      { text: "Publishing.", toolCalls: [{ name: "publish_poster", input: { title: "Spring" } }] },
      { text: "Not published." },
    ]);
    render(<ChatApp transport={app.transport()} />);
    fireEvent.click(screen.getByRole("button", { name: "send" }));
    fireEvent.click(await screen.findByRole("button", { name: "Deny" }));
    await screen.findByText("Not published.");
    await waitFor(() => expect(document.querySelector("main")?.dataset.status).toBe("ready"));
    const [session] = await app.runtime.listSessions();
    const { events, problems } = await app.events(session!.sessionId);
    expect(problems).toEqual([]);
    expect(events.filter((event) => event.type === "tool.result")).toMatchObject([{ outcome: "declined" }]);
    expect(document.querySelector("[data-state]")?.getAttribute("data-state")).toBe("declined");
  });
});
