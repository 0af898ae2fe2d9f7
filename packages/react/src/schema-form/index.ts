export { FallbackWidget } from "./fallback-widget.js";
export { SchemaForm, type SchemaFormProps } from "./schema-form.js";
export { type FormNode, toFormNode } from "./schema-node.js";
export { useFocusOnAppear } from "./use-focus-on-appear.js";
export { ValueView } from "./value-view.js";
export { defaultStatusLabels, WidgetFrame, type WidgetFrameProps, type WidgetFrameState } from "./widget-frame.js";
