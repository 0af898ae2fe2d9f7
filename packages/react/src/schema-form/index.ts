export { type BusyButtonProps, busyButtonProps } from "./busy-button-props.js";
export { FallbackWidget } from "./fallback-widget.js";
export { SchemaForm, type SchemaFormProps } from "./schema-form.js";
export { useFocusOnAppear } from "./use-focus-on-appear.js";
export { ValueView } from "./value-view.js";
export { WidgetFrame, type WidgetFrameProps, type WidgetFrameState } from "./widget-frame.js";
