import type { ApprovalAnswer } from "@hitl-kit/protocol";
import { type WidgetTextOverrides, WidgetTextsProvider } from "@hitl-kit/react";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { ApprovalCard, ChoicePicker, FormWidget, FreeformAnswer, MultiChoicePicker } from "../src/index.js";
import { requestProps } from "./request-props.js";

afterEach(cleanup);

const french: WidgetTextOverrides = {
  send: "Envoyer",
  decline: "Refuser",
  approve: "Approuver",
  deny: "Refuser l'action",
  approved: "Approuvé",
  submit: "Valider",
  choose: "Choisir",
  options: "Choix",
  yourAnswer: "Votre réponse",
  reason: "Motif",
  optional: "(facultatif)",
  writeFirst: "Écrivez d'abord une réponse.",
  atLeast: (count) => `Écrivez au moins ${count} caractères.`,
  count: (count, max) => `${count.toLocaleString("fr-FR")} sur ${max?.toLocaleString("fr-FR")} caractères`,
  sendKeys: "Ctrl+Entrée pour envoyer",
  upTo: (max) => `${max} au plus.`,
  selected: (count) => `${count} choisi(s).`,
  limits: (min, max) => `Entre ${min} et ${max}.`,
  status: { pending: "En attente" },
  issues: { required: "Ce champ est obligatoire." },
};

function InFrench({ children }: { children: ReactNode }) {
  return <WidgetTextsProvider value={french}>{children}</WidgetTextsProvider>;
}

const limited = { type: "object", properties: { answer: { type: "string", minLength: 3, maxLength: 1200 } } };

describe("widget texts", () => {
  it("reach FreeformAnswer's label, count, buttons and error message", () => {
    const props = requestProps({}, { answerSchema: limited });
    render(<FreeformAnswer {...props} />, { wrapper: InFrench });
    const box = screen.getByLabelText("Votre réponse");
    expect(
      screen.getByText(/0 sur 1\s200 caractères · Écrivez au moins 3 caractères\. · Ctrl\+Entrée pour envoyer/),
    ).toBeTruthy();
    fireEvent.change(box, { target: { value: "Hi" } });
    fireEvent.click(screen.getByRole("button", { name: "Envoyer" }));
    expect(screen.getByRole("alert").textContent).toBe("Écrivez au moins 3 caractères.");
    expect(screen.getByRole("button", { name: "Refuser" })).toBeTruthy();
    expect(screen.getByRole("status").textContent).toBe("En attente");
    expect(props.respond).not.toHaveBeenCalled();
  });

  it("reach ApprovalCard's buttons, reason label and badge", () => {
    const props = requestProps<{ amount: number }, ApprovalAnswer>({ amount: 1200 }, { prompt: "Rembourser ?" });
    const { rerender } = render(<ApprovalCard {...props} />, { wrapper: InFrench });
    expect(screen.getByLabelText("Motif (facultatif)")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Approuver" }));
    expect(props.respond).toHaveBeenCalledWith({});
    expect(screen.getByRole("button", { name: "Refuser l'action" })).toBeTruthy();
    rerender(<ApprovalCard {...props} status="resolved" resolution={{ action: "accept", value: {} }} />);
    expect(screen.getByRole("status").textContent).toBe("Approuvé");
  });

  it("reach a picker's accessible name, limits, count and messages", () => {
    const props = requestProps({ choices: ["Jambon", "Olives", "Basilic"] }, { prompt: undefined });
    const { request } = props;
    render(<MultiChoicePicker {...props} request={{ ...request, prompt: undefined }} min={1} max={1} />, {
      wrapper: InFrench,
    });
    const group = screen.getByRole("group", { name: "Choix" });
    expect(group).toBeTruthy();
    expect(screen.getByText("Entre 1 et 1. 0 choisi(s).")).toBeTruthy();
    fireEvent.click(screen.getByRole("checkbox", { name: "Olives" }));
    fireEvent.click(screen.getByRole("checkbox", { name: "Jambon" }));
    expect(screen.getByRole("alert").textContent).toBe("1 au plus.");
    expect(screen.getByRole("button", { name: "Choisir" })).toBeTruthy();
  });

  it("reach FormWidget's submit button and SchemaForm's issue messages", () => {
    const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
    const props = requestProps({}, { answerSchema: schema });
    render(<FormWidget {...props} />, { wrapper: InFrench });
    fireEvent.click(screen.getByRole("button", { name: "Valider" }));
    expect(screen.getAllByText("Ce champ est obligatoire.").length).toBeGreaterThan(0);
    expect(props.respond).not.toHaveBeenCalled();
  });

  it("keep the English of every text they do not give", () => {
    const props = requestProps({}, { answerSchema: limited });
    render(
      <WidgetTextsProvider value={{ send: "Envoyer" }}>
        <FreeformAnswer {...props} />
      </WidgetTextsProvider>,
    );
    expect(screen.getByRole("button", { name: "Envoyer" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "Decline" })).toBeTruthy();
    expect(screen.getByLabelText("Your answer")).toBeTruthy();
    expect(screen.getByText("0 / 1200 characters · Write at least 3 characters. · Ctrl+Enter to send")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Envoyer" }));
    expect(screen.getByRole("alert").textContent).toBe("Write at least 3 characters.");
  });

  it("give way to a widget's own props", () => {
    const props = requestProps({ choices: ["Rouge", "Vert"] });
    render(<ChoicePicker {...props} submitLabel="Prendre" />, { wrapper: InFrench });
    expect(screen.getByRole("button", { name: "Prendre" })).toBeTruthy();
    cleanup();
    const approval = requestProps<{ amount: number }, ApprovalAnswer>({ amount: 5 });
    render(<ApprovalCard {...approval} approveLabel="OK" />, { wrapper: InFrench });
    expect(screen.getByRole("button", { name: "OK" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "Refuser l'action" })).toBeTruthy();
    cleanup();
    render(<FreeformAnswer {...requestProps({})} label="Votre titre" />, { wrapper: InFrench });
    expect(screen.getByLabelText("Votre titre")).toBeTruthy();
  });
});
