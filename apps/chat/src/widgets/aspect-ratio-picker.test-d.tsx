import { defineClientTool } from "@hitl-kit/protocol";
import { createWidgetRegistry, type WidgetFor } from "@hitl-kit/react";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { AspectRatioPicker, type AspectRatioPickerProps } from "./aspect-ratio-picker.js";

const ratios = ["1:1", "4:5", "16:9"] as const;
type Ratio = (typeof ratios)[number];

const tools = [
  defineClientTool({
    name: "pick_aspect_ratio",
    description: "d",
    inputSchema: z.object({ ratios: z.array(z.enum(ratios)).optional() }),
    answerSchema: z.object({ ratio: z.enum(ratios) }),
  }),
  defineClientTool({
    name: "pick_any_ratio",
    description: "d",
    inputSchema: z.object({}),
    answerSchema: z.object({ ratio: z.string() }),
  }),
  defineClientTool({
    name: "pick_size",
    description: "d",
    inputSchema: z.object({}),
    answerSchema: z.object({ size: z.number() }),
  }),
] as const;
type Tools = typeof tools;

describe("AspectRatioPicker", () => {
  it("registers without a cast for a tool whose answer is an enum", () => {
    createWidgetRegistry<Tools>().add("pick_aspect_ratio", AspectRatioPicker);
    createWidgetRegistry<Tools>({ pick_aspect_ratio: AspectRatioPicker });
  });

  it("takes the enum's values as its ratios prop", () => {
    const Picker: WidgetFor<Tools, "pick_aspect_ratio"> = (props) => <AspectRatioPicker {...props} ratios={ratios} />;
    createWidgetRegistry<Tools>().add("pick_aspect_ratio", Picker);
  });

  it("refuses ratios outside the enum", () => {
    const Picker: WidgetFor<Tools, "pick_aspect_ratio"> = (props) => (
      // @ts-expect-error "2:1" is not one of the tool's ratios
      <AspectRatioPicker {...props} ratios={["1:1", "2:1"]} />
    );
    createWidgetRegistry<Tools>().add("pick_aspect_ratio", Picker);
  });

  it("still answers any string for a string answer, and refuses another answer's shape", () => {
    createWidgetRegistry<Tools>().add("pick_any_ratio", AspectRatioPicker);
    // @ts-expect-error the answer is { size }, not { ratio }
    createWidgetRegistry<Tools>().add("pick_size", AspectRatioPicker);
  });

  it("types its props from the ratio union", () => {
    expectTypeOf<AspectRatioPickerProps<Ratio>["respond"]>().parameter(0).toEqualTypeOf<{ ratio: Ratio }>();
    expectTypeOf<AspectRatioPickerProps["respond"]>().parameter(0).toEqualTypeOf<{ ratio: string }>();
  });
});
