import type { ToolAnswer, ToolInput, ToolName, ToolSet } from "@hitl-kit/protocol";
import type { ComponentType } from "react";
import type { WidgetProps } from "./widget-props.js";

/** The component type a registry accepts for the tool called `Name`: props typed from its definition. */
export type WidgetFor<Tools extends ToolSet, Name extends ToolName<Tools>> = ComponentType<
  WidgetProps<ToolInput<Tools, Name>, ToolAnswer<Tools, Name>>
>;

/** A static map from tool names to widgets, typed from the tools' definitions. */
export type WidgetMap<Tools extends ToolSet> = { [Name in ToolName<Tools>]?: WidgetFor<Tools, Name> };

/** A typed, immutable registry of widgets; anything not in it renders with the fallback form. */
export interface WidgetRegistry<Tools extends ToolSet = ToolSet> {
  /**
   * A new registry with one more widget. An unknown tool name, or a widget whose props do
   * not fit the tool's input and answer, is a compile error.
   */
  add<Name extends ToolName<Tools>>(name: Name, widget: WidgetFor<Tools, Name>): WidgetRegistry<Tools>;
  /** The widget registered for a tool, if any. */
  get(toolName: string): ComponentType<WidgetProps> | undefined;
}

/**
 * Creates the registry that maps each parked request's tool to a widget.
 * @example
 * const widgets = createWidgetRegistry<typeof tools>()
 *   .add("pick_template", TemplatePicker) // props: WidgetProps<{ templates: Template[] }, { templateId: string }>
 *   .add("refund_charge", ApprovalCard);
 * // or all at once: createWidgetRegistry<typeof tools>({ pick_template: TemplatePicker })
 */
export function createWidgetRegistry<Tools extends ToolSet>(widgets: WidgetMap<Tools> = {}): WidgetRegistry<Tools> {
  const map = new Map(Object.entries(widgets) as [string, ComponentType<WidgetProps>][]);
  return {
    add(name, widget) {
      return createWidgetRegistry<Tools>({ ...Object.fromEntries(map), [name]: widget } as WidgetMap<Tools>);
    },
    get: (toolName) => map.get(toolName),
  };
}
