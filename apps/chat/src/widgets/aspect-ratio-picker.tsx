import type { WidgetProps } from "@hitl-kit/react";
import { ChoicePicker } from "@hitl-kit/widgets";
import type { CSSProperties } from "react";
import "../aspect-ratio-picker.css";

/** The ratios offered when neither the input nor the props name any. */
export const defaultRatios = ["1:1", "4:5", "3:2", "16:9", "9:16"];

/**
 * Props of {@link AspectRatioPicker}: the input may carry `ratios`, the answer is `{ ratio }`.
 * `Ratio` is the ratios' type: `string`, or a tool's enum (`"1:1" | "4:5"`), inferred
 * from the tool's definition when the picker is registered.
 */
export type AspectRatioPickerProps<Ratio extends string = string> = WidgetProps<
  { ratios?: readonly Ratio[] | undefined } | undefined,
  { ratio: Ratio }
> & {
  /**
   * The ratios to offer (`"16:9"`); the input's `ratios`, else {@link defaultRatios}. With
   * an enum answer and an input that may leave `ratios` out, pass the enum's values here so
   * that only those are offered.
   */
  ratios?: readonly Ratio[];
  className?: string;
};

const names: Record<string, string> = {
  "1:1": "Square",
  "4:5": "Portrait",
  "3:2": "Photo",
  "16:9": "Widescreen",
  "9:16": "Story",
};

function RatioBox({ ratio }: { ratio: string }) {
  const [w = 1, h = 1] = ratio.split(":").map((n) => Number(n) || 1);
  const longest = Math.max(w, h);
  // The box's shape is the option's data; the stylesheet sizes it from these two factors.
  const style = { "--hitl-ratio-x": w / longest, "--hitl-ratio-y": h / longest } as CSSProperties;
  return (
    <span className="hitl-ratio">
      <span className="hitl-ratio__box" style={style} />
    </span>
  );
}

/**
 * The demo's aspect ratio picker, a custom widget on the kit's `ChoicePicker`: aspect
 * ratios drawn as boxes of that shape, answered with `{ ratio }`.
 * @example
 * // answer: z.object({ ratio: z.enum(["1:1", "4:5", "16:9"]) }) — the picker's types follow the enum
 * widgets.add("choose_aspect_ratio", AspectRatioPicker);
 */
export function AspectRatioPicker<Ratio extends string = string>(props: AspectRatioPickerProps<Ratio>) {
  // The defaults are what a picker without ratios has always offered; a typed caller names its own.
  const ratios = props.ratios ?? props.request.input?.ratios ?? (defaultRatios as Ratio[]);
  return (
    <ChoicePicker<AspectRatioPickerProps<Ratio>["request"]["input"], { ratio: Ratio }, Ratio>
      {...props}
      className={["hitl-aspect-ratio-picker", props.className].filter(Boolean).join(" ")}
      layout="grid"
      submitLabel="Use ratio"
      options={ratios.map((ratio) => ({ value: ratio, label: ratio, description: names[ratio] }))}
      toAnswer={(option) => ({ ratio: option.value })}
      renderVisual={(option) => <RatioBox ratio={option.value} />}
    />
  );
}
