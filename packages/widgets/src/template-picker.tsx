import type { WidgetProps } from "@hitl-kit/react";
import { ChoicePicker } from "./choice-picker.js";

/** A template as a `pick_template` tool sends it. */
export interface Template {
  id: string;
  name: string;
  description?: string;
  /** A preview image URL. */
  preview?: string;
  /** Colours of the template, shown as a swatch when there is no preview. */
  colors?: string[];
}

/** Props of {@link TemplatePicker}: the input carries the templates, the answer is `{ templateId }`. */
export type TemplatePickerProps = WidgetProps<{ templates: Template[] }, { templateId: string }> & {
  className?: string;
};

function Preview({ template }: { template: Template }) {
  if (template.preview) return <img className="hitl-thumbnail" src={template.preview} alt="" />;
  const colors = template.colors?.length ? template.colors : ["var(--hitl-accent)", "var(--hitl-surface-muted)"];
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
  const templates = props.request.input.templates ?? [];
  const byId = new Map(templates.map((t) => [t.id, t]));
  return (
    <ChoicePicker
      {...props}
      className={["hitl-template-picker", props.className].filter(Boolean).join(" ")}
      layout="grid"
      submitLabel="Use template"
      options={templates.map((t) => ({ value: t.id, label: t.name, description: t.description }))}
      toAnswer={(option) => ({ templateId: option.value })}
      renderVisual={(option) => {
        const template = byId.get(option.value);
        return template ? <Preview template={template} /> : null;
      }}
    />
  );
}
