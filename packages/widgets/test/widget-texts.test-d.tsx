import { useWidgetTexts, type WidgetTextOverrides, WidgetTextsProvider } from "@hitl-kit/react";
import { describe, expectTypeOf, it } from "vitest";
import { defaultWidgetKitTexts } from "../src/index.js";

describe("WidgetTextsProvider's value", () => {
  it("takes the texts of @hitl-kit/react and @hitl-kit/widgets, any of them, groups in part", () => {
    <WidgetTextsProvider
      value={{
        send: "Envoyer",
        submit: "Valider",
        atLeast: (count) => `Au moins ${count}`,
        status: { error: "Non envoyé" },
      }}
    />;
    const partial: WidgetTextOverrides = { issues: { minLength: (count: number) => `≥ ${count}` } };
    expectTypeOf(partial).toExtend<WidgetTextOverrides>();
  });

  it("refuses a misspelt key", () => {
    // @ts-expect-error there is no `sned`
    <WidgetTextsProvider value={{ sned: "Envoyer" }} />;
    // @ts-expect-error nor a `requierd` issue
    <WidgetTextsProvider value={{ issues: { requierd: "Obligatoire." } }} />;
  });

  it("refuses a text of the wrong type", () => {
    // @ts-expect-error atLeast is a function of the count
    <WidgetTextsProvider value={{ atLeast: "Au moins 3" }} />;
    // @ts-expect-error the count is a number, not a string
    <WidgetTextsProvider value={{ atLeast: (count: string) => count }} />;
    // @ts-expect-error a label is a string
    <WidgetTextsProvider value={{ send: 3 }} />;
    // @ts-expect-error a status badge is a string
    <WidgetTextsProvider value={{ status: { pending: () => "En attente" } }} />;
  });

  it("gives a widget its texts, with the defaults of its own", () => {
    function Custom() {
      const texts = useWidgetTexts(defaultWidgetKitTexts);
      expectTypeOf(texts.send).toEqualTypeOf<string>();
      expectTypeOf(texts.atLeast).toEqualTypeOf<(count: number) => string>();
      expectTypeOf(texts.issues.required).toEqualTypeOf<string>();
      return null;
    }
    <Custom />;
  });
});
