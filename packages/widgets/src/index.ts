export { ApprovalCard, type ApprovalCardProps } from "./approval-card.js";
export {
  type AskQuestionInput,
  AskQuestionWidget,
  type AskQuestionWidgetProps,
} from "./ask-question-widget.js";
export { AspectRatioPicker, type AspectRatioPickerProps, defaultRatios } from "./aspect-ratio-picker.js";
export { ChoiceGroup, type ChoiceGroupProps } from "./choice-group.js";
export { type ChoiceOption, choicesOf, chosenOptions, type RenderVisual } from "./choice-option.js";
export { ChoicePicker, type ChoicePickerProps, type SingleAnswerMapping } from "./choice-picker.js";
export { FormWidget, type FormWidgetProps } from "./form-widget.js";
export { FreeformAnswer, type FreeformAnswerProps, textTarget } from "./freeform-answer.js";
export { type MediaItem, MediaPicker, type MediaPickerProps } from "./media-picker.js";
export {
  arrayLimits,
  type MultiAnswerMapping,
  MultiChoicePicker,
  type MultiChoicePickerProps,
} from "./multi-choice-picker.js";
export { PicturePlaceholder } from "./picture-placeholder.js";
export { safeCssColor, safeImageUrl } from "./safe-content.js";
export { type Template, TemplatePicker, type TemplatePickerProps } from "./template-picker.js";
