import type { ToolCallState } from "@hitl-kit/client";
import type { ToolInput, ToolName, ToolSet } from "@hitl-kit/protocol";
import type { ComponentType } from "react";
import type { WidgetProps, WidgetPropsFor } from "./widget-props.js";

/** The component type a registry accepts for the tool called `Name`: props typed from its definition. */
export type WidgetFor<Tools extends ToolSet, Name extends ToolName<Tools>> = ComponentType<WidgetPropsFor<Tools, Name>>;

/** A static map from tool names to widgets, typed from the tools' definitions. */
export type WidgetMap<Tools extends ToolSet> = { [Name in ToolName<Tools>]?: WidgetFor<Tools, Name> };

/**
 * The props of a renderer for tool calls that do not park (a server tool running, done or
 * failed): a union on `state`, so only a finished call has its `output`.
 */
export type ToolCallProps<Input = unknown, Output = unknown, Name extends string = string> = ToolCallState<
  Input,
  Output,
  Name
>;

/** The component type a registry accepts to render the calls of the tool called `Name`. */
export type ToolCallRendererFor<Tools extends ToolSet, Name extends ToolName<Tools>> = ComponentType<
  ToolCallProps<ToolInput<Tools, Name>, unknown>
>;

/** A static map from tool names to tool call renderers. */
export type ToolCallMap<Tools extends ToolSet> = { [Name in ToolName<Tools>]?: ToolCallRendererFor<Tools, Name> };

/**
 * A typed, immutable registry: widgets for parked requests (anything not in it renders
 * with the fallback form) and renderers for tool calls that do not park (anything not in
 * it renders with the default tool call card). Without `Tools` (a prop that takes any
 * registry, as `<ParkedRequests widgets>`), it is a registry of tools not known there, which
 * every typed registry is.
 */
// The default is `any`, not `ToolSet`: `add` takes the tools' types in and gives them back, so
// TypeScript 5 (unlike 6) finds a registry of some tools no `WidgetRegistry<ToolSet>`.
// biome-ignore lint/suspicious/noExplicitAny: a registry of tools this code does not know
export interface WidgetRegistry<Tools extends ToolSet = any> {
  /**
   * A new registry with one more widget. An unknown tool name, or a widget whose props do
   * not fit the tool's input and answer, is a compile error.
   */
  // `NoInfer`: the name alone picks the tool; without `strictFunctionTypes` (`strict: false`,
  // as Next.js writes a new project's tsconfig) the widget would widen it to every tool.
  add<Name extends ToolName<Tools>>(name: Name, widget: WidgetFor<Tools, NoInfer<Name>>): WidgetRegistry<Tools>;
  /**
   * A new registry with one more renderer for a tool's calls that do not park (running,
   * done, failed). Its props' `input` is typed from the tool's definition.
   */
  addToolCall<Name extends ToolName<Tools>>(
    name: Name,
    renderer: ToolCallRendererFor<Tools, NoInfer<Name>>,
  ): WidgetRegistry<Tools>;
  /** The widget registered for a tool, if any. */
  get(toolName: string): ComponentType<WidgetProps> | undefined;
  /** The tool call renderer registered for a tool, if any. */
  getToolCall(toolName: string): ComponentType<ToolCallProps> | undefined;
}

/**
 * Creates the registry that maps each parked request's tool to a widget, and each tool
 * call that does not park to a renderer.
 * @example
 * const widgets = createWidgetRegistry<typeof tools>()
 *   .add("pick_template", TemplatePicker) // props: WidgetProps<{ templates: Template[] }, { templateId: string }>
 *   .add("refund_charge", ApprovalCard)
 *   .addToolCall("search_web", SearchResults); // props: ToolCallProps<{ query: string }>
 * // or all at once: createWidgetRegistry<typeof tools>({ pick_template: TemplatePicker }, { search_web: SearchResults })
 */
export function createWidgetRegistry<Tools extends ToolSet>(
  widgets: WidgetMap<Tools> = {},
  toolCalls: ToolCallMap<Tools> = {},
): WidgetRegistry<Tools> {
  const widgetMap = new Map(Object.entries(widgets) as [string, ComponentType<WidgetProps>][]);
  const toolCallMap = new Map(Object.entries(toolCalls) as [string, ComponentType<ToolCallProps>][]);
  return {
    add(name, widget) {
      return createWidgetRegistry<Tools>({ ...widgets, [name]: widget } as WidgetMap<Tools>, toolCalls);
    },
    addToolCall(name, renderer) {
      return createWidgetRegistry<Tools>(widgets, { ...toolCalls, [name]: renderer } as ToolCallMap<Tools>);
    },
    get: (toolName) => widgetMap.get(toolName),
    getToolCall: (toolName) => toolCallMap.get(toolName),
  };
}
