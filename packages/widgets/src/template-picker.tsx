"use client";

import type { WidgetProps } from "@hitl-kit/react";
import { ChoicePicker } from "./choice-picker.js";
import { useKitTexts } from "./kit-texts.js";
import { PicturePlaceholder } from "./picture-placeholder.js";
import { safeCssColor, safeImageUrl } from "./safe-content.js";

/** A template as a `pick_template` tool sends it. */
export interface Template {
  /** The id the answer carries (`{ templateId }`). */
  id: string;
  /** The template's visible name. */
  name: string;
  /** A line under the name. */
  description?: string;
  /** A preview image URL: `https:`, relative to the page, or a raster `data:image/…` (see `safeImageUrl`). */
  preview?: string;
  /** Colours of the template, shown as a swatch when there is no preview: plain CSS colours (see `safeCssColor`). */
  colors?: string[];
}

/** Props of {@link TemplatePicker}: the input carries the templates, the answer is `{ templateId }`. */
export type TemplatePickerProps = WidgetProps<{ templates: Template[] }, { templateId: string }> & {
  className?: string;
};

const themeColors = ["var(--hitl-accent)", "var(--hitl-surface-muted)"];

/** The template's preview, else a swatch of its colours; a URL or colour that fails its check shows a placeholder. */
function Preview({ template }: { template: Template }) {
  if (template.preview) {
    const src = safeImageUrl(template.preview);
    return src ? <img className="hitl-thumbnail" src={src} alt="" /> : <PicturePlaceholder label={template.name} />;
  }
  const colors =
    Array.isArray(template.colors) && template.colors.length > 0 ? template.colors.map(safeCssColor) : themeColors;
  if (colors.some((color) => color === undefined)) return <PicturePlaceholder label={template.name} />;
  // The swatch's colours are the template's data, so they are the one inline style here.
  return <span className="hitl-swatch" style={{ background: `linear-gradient(135deg, ${colors.join(", ")})` }} />;
}

/**
 * An example of a custom widget on the kit's primitives: the templates of a
 * `pick_template` call as cards with a preview, answered with `{ templateId }`.
 * @example
 * widgets.add("pick_template", TemplatePicker);
 */
export function TemplatePicker(props: TemplatePickerProps) {
  const texts = useKitTexts();
  const templates = props.request.input.templates ?? [];
  const byId = new Map(templates.map((t) => [t.id, t]));
  return (
    <ChoicePicker
      {...props}
      className={["hitl-template-picker", props.className].filter(Boolean).join(" ")}
      layout="grid"
      submitLabel={texts.useTemplate}
      options={templates.map((t) => ({ value: t.id, label: t.name, description: t.description }))}
      toAnswer={(option) => ({ templateId: option.value })}
      renderVisual={(option) => {
        const template = byId.get(option.value);
        return template ? <Preview template={template} /> : null;
      }}
    />
  );
}
