import { createWidgetRegistry, type WidgetFor } from "@hitl-kit/react";
import { ApprovalCard, FormWidget, TemplatePicker } from "@hitl-kit/widgets";
import type { tools } from "../shared/tools.js";
import { AspectRatioPicker } from "./aspect-ratio-picker.js";
import { MediaLibraryPicker } from "./media-library-picker.js";

type Tools = typeof tools;

/** `collect_details`: the answer schema as a form. */
export const DetailsForm: WidgetFor<Tools, "collect_details"> = (props) => (
  <FormWidget {...props} submitLabel="Send details" />
);

/** `publish_poster`: an approval with the verbs of publishing. */
export const PublishApproval: WidgetFor<Tools, "publish_poster"> = (props) => (
  <ApprovalCard {...props} approveLabel="Publish" denyLabel="Don't publish" />
);

/** `refund_charge`: an approval with the verbs of refunding. */
export const RefundApproval: WidgetFor<Tools, "refund_charge"> = (props) => (
  <ApprovalCard {...props} approveLabel="Refund" denyLabel="Don't refund" />
);

/**
 * The demo's widgets, one per tool, typed from the shared definitions: a widget whose
 * props do not fit its tool is a compile error.
 * @example
 * <Transcript agent={agent} widgets={chatWidgets} />
 */
export const chatWidgets = createWidgetRegistry<Tools>()
  .add("pick_template", TemplatePicker)
  // Typed by the tool's ratio enum; a call without `ratios` gets the kit's defaults, which are that enum.
  .add("pick_aspect_ratio", AspectRatioPicker)
  .add("pick_media", MediaLibraryPicker)
  .add("collect_details", DetailsForm)
  .add("publish_poster", PublishApproval)
  .add("refund_charge", RefundApproval);
