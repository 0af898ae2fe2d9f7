"use client";

import type { WidgetProps } from "@hitl-kit/react";
import type { ChoiceOption } from "./choice-option.js";
import { ChoicePicker } from "./choice-picker.js";
import { MultiChoicePicker } from "./multi-choice-picker.js";
import { PicturePlaceholder } from "./picture-placeholder.js";
import { safeImageUrl } from "./safe-content.js";

/** One picture or video poster a {@link MediaPicker} offers. */
export interface MediaItem {
  /** The id the answer carries (`{ mediaId }` or `{ mediaIds }` by default). */
  id: string;
  /**
   * The thumbnail's URL: `https:`, relative to the page, or a raster `data:image/…`;
   * any other shows a placeholder with the label (see `safeImageUrl`).
   */
  src: string;
  /** What the picture shows; it names the option for screen readers. */
  alt: string;
  /** A visible caption; without one the grid shows pictures only. */
  label?: string;
}

/** Props of {@link MediaPicker}. */
export type MediaPickerProps<Input = unknown, Answer = unknown> = WidgetProps<Input, Answer> & {
  /** The items to show; loading them (from a media library, say) is the app's job. */
  items: readonly MediaItem[];
  /** Lets the person choose several items. */
  multiple?: boolean;
  min?: number;
  max?: number;
  /** Turns the chosen items into the answer; by default `{ mediaId }`, or `{ mediaIds }` when `multiple`. */
  toAnswer?: (items: MediaItem[]) => Answer;
  submitLabel?: string;
  className?: string;
};

function Thumbnail({ option }: { option: ChoiceOption<MediaItem> }) {
  const src = safeImageUrl(option.value.src);
  if (!src) return <PicturePlaceholder label={option.label} />;
  return <img className="hitl-thumbnail" src={src} alt="" loading="lazy" />;
}

/**
 * A grid of thumbnails to choose one or several from, by pointer or keyboard (the arrow
 * keys move through rows and columns).
 * @example
 * <MediaPicker {...props} items={library.data ?? []} multiple max={4} />
 */
export function MediaPicker<Input = unknown, Answer = unknown>(props: MediaPickerProps<Input, Answer>) {
  const { items, multiple = false } = props;
  const options = items.map((item) => ({ value: item, label: item.label ?? item.alt }));
  const hideLabels = items.every((item) => item.label === undefined);
  const toAnswer =
    props.toAnswer ??
    ((chosen: MediaItem[]) =>
      (multiple ? { mediaIds: chosen.map((item) => item.id) } : { mediaId: chosen[0]?.id }) as Answer);
  const className = ["hitl-media-picker", props.className].filter(Boolean).join(" ");
  const shared = {
    ...(props as WidgetProps<Input, Answer>),
    options,
    layout: "grid" as const,
    hideLabels,
    submitLabel: props.submitLabel,
    className,
    renderVisual: (option: ChoiceOption<MediaItem>) => <Thumbnail option={option} />,
  };
  if (multiple) {
    return (
      <MultiChoicePicker<Input, Answer, MediaItem>
        {...shared}
        min={props.min}
        max={props.max}
        toAnswer={(chosen) => toAnswer(chosen.map((o) => o.value))}
      />
    );
  }
  return <ChoicePicker<Input, Answer, MediaItem> {...shared} toAnswer={(option) => toAnswer([option.value])} />;
}
