import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  FallbackWidget,
  SchemaForm,
  ToolCallCard,
  type WidgetTextOverrides,
  WidgetTextsProvider,
} from "../src/index.js";

afterEach(cleanup);

const french: WidgetTextOverrides = {
  submit: "Envoyer",
  decline: "Refuser",
  cancel: "Annuler",
  status: { pending: "En attente", error: "Non envoyé" },
  label: (key) => ({ name: "Nom", seats: "Places" })[key] ?? key,
  issues: {
    required: "Ce champ est obligatoire.",
    minLength: (count) => `Au moins ${count} caractères.`,
    maximum: (limit) => `${limit.toLocaleString("fr-FR")} au plus.`,
  },
  error: () => "Réponse refusée.",
  call: { running: "En cours…", input: "Entrée" },
};

const schema = {
  type: "object",
  properties: {
    name: { type: "string", minLength: 2 },
    seats: { type: "integer", maximum: 1000 },
    email: { type: "string", format: "email" },
  },
  required: ["name", "seats"],
};

const request = {
  requestId: "req_1",
  toolCallId: "call_1",
  toolName: "book_table",
  kind: "input" as const,
  prompt: "Réserver ?",
  input: {},
  answerSchema: schema,
};

describe("WidgetTextsProvider", () => {
  it("puts SchemaForm's labels, button and issue messages in the app's language, numbers formatted by it", () => {
    const onSubmit = vi.fn();
    render(
      <WidgetTextsProvider value={french}>
        <SchemaForm schema={schema} onSubmit={onSubmit} />
      </WidgetTextsProvider>,
    );
    fireEvent.change(screen.getByLabelText(/Nom/), { target: { value: "A" } });
    fireEvent.change(screen.getByLabelText(/Places/), { target: { value: "1200" } });
    fireEvent.change(screen.getByLabelText("email"), { target: { value: "x" } });
    fireEvent.click(screen.getByRole("button", { name: "Envoyer" }));
    expect(onSubmit).not.toHaveBeenCalled();
    expect(screen.getByText("Au moins 2 caractères.")).toBeTruthy();
    expect(screen.getByText(/^1\s000 au plus\.$/)).toBeTruthy();
    // Not given: the English default stays.
    expect(screen.getByText("Enter an email address.")).toBeTruthy();
  });

  it("gives FallbackWidget its buttons, badge, error and the required message", () => {
    const props = { request, respond: vi.fn(), decline: vi.fn(), cancel: vi.fn() };
    const { rerender } = render(
      <WidgetTextsProvider value={french}>
        <FallbackWidget {...props} status="pending" />
      </WidgetTextsProvider>,
    );
    expect(screen.getByRole("status").textContent).toBe("En attente");
    fireEvent.click(screen.getByRole("button", { name: "Envoyer" }));
    expect(screen.getAllByText("Ce champ est obligatoire.")).toHaveLength(2);
    fireEvent.click(screen.getByRole("button", { name: "Refuser" }));
    expect(props.decline).toHaveBeenCalled();
    expect(screen.getByRole("button", { name: "Annuler" })).toBeTruthy();
    rerender(
      <WidgetTextsProvider value={french}>
        <FallbackWidget
          {...props}
          status="error"
          error={{ code: "invalid_answer", message: "The answer does not fit.", issues: [] }}
        />
      </WidgetTextsProvider>,
    );
    expect(screen.getByRole("status").textContent).toBe("Non envoyé");
    expect(screen.getByRole("alert").textContent).toBe("Réponse refusée.");
  });

  it("keeps the English of every text it is not given, in a group too", () => {
    render(
      <WidgetTextsProvider value={{ status: { pending: "En attente" } }}>
        <FallbackWidget
          request={request}
          status="declined"
          resolution={{ action: "decline" }}
          respond={vi.fn()}
          decline={vi.fn()}
          cancel={vi.fn()}
        />
      </WidgetTextsProvider>,
    );
    expect(screen.getByRole("status").textContent).toBe("Declined");
    expect(screen.getByText("No reason given.")).toBeTruthy();
  });

  it("merges a nested provider over the one above it", () => {
    render(
      <WidgetTextsProvider value={french}>
        <WidgetTextsProvider value={{ submit: "Valider", issues: { maxLength: (count) => `≤ ${count}` } }}>
          <SchemaForm schema={schema} onSubmit={vi.fn()} />
        </WidgetTextsProvider>
      </WidgetTextsProvider>,
    );
    fireEvent.click(screen.getByRole("button", { name: "Valider" }));
    expect(screen.getAllByText("Ce champ est obligatoire.")).toHaveLength(2);
  });

  it("lets a prop win over the provider", () => {
    render(
      <WidgetTextsProvider value={french}>
        <SchemaForm schema={schema} onSubmit={vi.fn()} submitLabel="Réserver" />
      </WidgetTextsProvider>,
    );
    expect(screen.getByRole("button", { name: "Réserver" })).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Envoyer" })).toBeNull();
  });

  it("names the tool in the person's language with `tool`, and marks only the identifier as English", () => {
    const props = { request, respond: vi.fn(), decline: vi.fn(), cancel: vi.fn(), status: "pending" as const };
    const { rerender } = render(<FallbackWidget {...props} />);
    const name = () => document.querySelector(".hitl-widget__tool")!;
    expect([name().textContent, name().getAttribute("lang")]).toEqual(["Book table", "en"]);
    const tool = (toolName: string) => ({ book_table: "Réserver une table" })[toolName] ?? toolName;
    rerender(
      <WidgetTextsProvider value={{ tool }}>
        <FallbackWidget {...props} />
        <ToolCallCard toolCallId="call_2" toolName="book_table" input={{}} state="running" />
      </WidgetTextsProvider>,
    );
    expect([name().textContent, name().getAttribute("lang")]).toEqual(["Réserver une table", null]);
    expect(document.querySelector(".hitl-tool-call__name")!.textContent).toBe("Réserver une table");
  });

  it("shows a settled answer labelled as its form was: the fields' and the options' titles, in the app's language", () => {
    const rooms = {
      type: "object",
      properties: {
        room: {
          title: "Raum",
          anyOf: [
            { const: "small", title: "Kleiner Raum" },
            { const: "large", title: "Großer Raum" },
          ],
        },
        day: { type: "string", format: "date", title: "Tag" },
        note: { type: "string" },
      },
    };
    render(
      <FallbackWidget
        request={{ ...request, answerSchema: rooms }}
        status="resolved"
        resolution={{ action: "accept", value: { room: "large", day: "2026-03-04", note: "Fenster" } }}
        respond={vi.fn()}
        decline={vi.fn()}
        cancel={vi.fn()}
      />,
    );
    const rows = [...document.querySelectorAll(".hitl-values__row")].map((row) => row.textContent);
    expect(rows).toEqual(["RaumGroßer Raum", "Tag2026-03-04", "NoteFenster"]);
  });

  it("gives ToolCallCard its states and headings", () => {
    render(
      <WidgetTextsProvider value={french}>
        <ToolCallCard toolCallId="call_1" toolName="search_web" input={{ query: "affiches" }} state="running" />
      </WidgetTextsProvider>,
    );
    expect(screen.getByRole("status").textContent).toBe("En cours…");
    expect(screen.getByText("Entrée")).toBeTruthy();
  });
});
