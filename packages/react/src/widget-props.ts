import type { RequestState } from "@hitl-kit/client";
import type { ToolAnswer, ToolInput, ToolName, ToolSet } from "@hitl-kit/protocol";

/** The verbs that answer one request, bound to it. */
export interface RequestVerbs<Answer = unknown> {
  /** Answers the request; the value is checked against the request's answer schema first. */
  respond: (value: Answer) => void;
  /** Declines the request (for an approval: denies it), optionally saying why. */
  decline: (reason?: string) => void;
  /** Cancels the request: the tool call ends as cancelled. */
  cancel: () => void;
}

/**
 * The props every widget receives: the request's state — a union on `status`, so a widget
 * reads `resolution` only once the request is settled, `sent` while it is `submitting`,
 * and `error` when its last answer was refused (it stays answerable) — and the verbs that
 * answer it. A widget sets `data-state={status}` on its root (`<WidgetFrame>` does).
 * @example
 * function TemplatePicker(props: WidgetProps<{ templates: Template[] }, { templateId: string }>) {
 *   if (props.status === "resolved") return <p>Chose {props.resolution.value.templateId}</p>;
 *   return <Picker templates={props.request.input.templates} onPick={(templateId) => props.respond({ templateId })} />;
 * }
 */
export type WidgetProps<Input = unknown, Answer = unknown, Name extends string = string> = RequestState<
  Input,
  Answer,
  Name
> &
  RequestVerbs<Answer>;

/** The props of the widget for the tool called `Name` of `Tools`: input and answer typed from its definition. */
export type WidgetPropsFor<Tools extends ToolSet, Name extends ToolName<Tools>> = WidgetProps<
  ToolInput<Tools, Name>,
  ToolAnswer<Tools, Name>,
  Name
>;
