export { FallbackWidget } from "./fallback-widget.js";
export { SchemaForm, type SchemaFormProps } from "./schema-form.js";
export { useFocusOnAppear } from "./use-focus-on-appear.js";
export { ValueView } from "./value-view.js";
export { WidgetFrame, type WidgetFrameProps } from "./widget-frame.js";
