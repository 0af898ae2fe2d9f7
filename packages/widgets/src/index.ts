/**
 * @hitl-kit/widgets: accessible default widgets for hitl-kit's parked requests — approval,
 * single and multiple choice, a schema form, free text, pictures — and the parts to build
 * your own (`ChoiceGroup`, `ChoicePicker`, the safe URL and colour checks). Import
 * `@hitl-kit/widgets/styles.css` once; theme with the `--hitl-*` CSS variables.
 * @packageDocumentation
 */
export { ApprovalCard, type ApprovalCardProps } from "./approval-card.js";
export {
  type AskQuestionInput,
  AskQuestionWidget,
  type AskQuestionWidgetProps,
} from "./ask-question-widget.js";
export { ChoiceGroup, type ChoiceGroupProps } from "./choice-group.js";
export type { ChoiceOption, RenderVisual } from "./choice-option.js";
export { ChoicePicker, type ChoicePickerProps, type SingleAnswerMapping } from "./choice-picker.js";
export { FormWidget, type FormWidgetProps } from "./form-widget.js";
export { FreeformAnswer, type FreeformAnswerProps, type FreeTextAnswer } from "./freeform-answer.js";
export { defaultWidgetKitTexts, type WidgetKitTexts } from "./kit-texts.js";
export { type MediaItem, MediaPicker, type MediaPickerProps } from "./media-picker.js";
export {
  type MultiAnswerMapping,
  MultiChoicePicker,
  type MultiChoicePickerProps,
} from "./multi-choice-picker.js";
export { PicturePlaceholder } from "./picture-placeholder.js";
export { safeCssColor, safeImageUrl } from "./safe-content.js";
export { type Template, TemplatePicker, type TemplatePickerProps } from "./template-picker.js";
