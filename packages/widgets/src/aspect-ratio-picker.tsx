import type { WidgetProps } from "@hitl-kit/react";
import type { CSSProperties } from "react";
import { ChoicePicker } from "./choice-picker.js";

/** The ratios offered when neither the input nor the props name any. */
export const defaultRatios = ["1:1", "4:5", "3:2", "16:9", "9:16"];

/** Props of {@link AspectRatioPicker}: the input may carry `ratios`, the answer is `{ ratio }`. */
export type AspectRatioPickerProps = WidgetProps<{ ratios?: string[] } | undefined, { ratio: string }> & {
  /** The ratios to offer (`"16:9"`); the input's `ratios`, else {@link defaultRatios}. */
  ratios?: string[];
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
 * An example of a custom widget: aspect ratios drawn as boxes of that shape, answered
 * with `{ ratio }`.
 * @example
 * widgets.add("choose_aspect_ratio", AspectRatioPicker);
 */
export function AspectRatioPicker(props: AspectRatioPickerProps) {
  const ratios = props.ratios ?? props.request.input?.ratios ?? defaultRatios;
  return (
    <ChoicePicker
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
