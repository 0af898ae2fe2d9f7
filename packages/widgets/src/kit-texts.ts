import { useWidgetTexts, type WidgetTexts } from "@hitl-kit/react";

/**
 * The words `@hitl-kit/widgets` adds to the widget texts of `@hitl-kit/react` (which holds
 * the shared ones: `submit`, `sending`, `decline`, `approve`, `deny`, the status badges, …).
 * Give them in the app's language to the same `<WidgetTextsProvider>`; a text that holds a
 * number is a function, so a language can place and format it.
 */
export interface WidgetKitTexts {
  /** `FreeformAnswer`'s submit button: "Send". */
  send: string;
  /** A picker's submit button: "Choose". */
  choose: string;
  /** `TemplatePicker`'s submit button: "Use template". */
  useTemplate: string;
  /** `FreeformAnswer`'s text box label: "Your answer". */
  yourAnswer: string;
  /** `ApprovalCard`'s title when the request has no prompt: "Allow this action?". */
  allow: string;
  /** `ApprovalCard`'s reason box label: "Reason". */
  reason: string;
  /** After the reason box label: "(optional)". */
  optional: string;
  /** `FreeformAnswer` sent empty: "Write an answer first." */
  writeFirst: string;
  /** `FreeformAnswer` sent too short: "Write at least 3 characters." */
  atLeast: (count: number) => string;
  /** `FreeformAnswer` sent too long: "Write at most 120 characters." */
  atMost: (count: number) => string;
  /** `FreeformAnswer`'s count: "12 / 120 characters", or "12 characters" without a limit. */
  count: (count: number, max: number | undefined) => string;
  /** After the count, where a keyboard is likely (a fine pointer): "Ctrl+Enter to send". */
  sendKeys: string;
  /** The same on Apple's platforms: "⌘+Enter to send". */
  sendKeysApple: string;
  /** A picker without options: "There are no options to choose from." */
  noOptions: string;
  /** A picker's accessible name when the request has no prompt: "Options". */
  options: string;
  /** A multiple choice at its maximum: "You can choose up to 3." */
  upTo: (max: number) => string;
  /** A single choice sent without one: "Choose an option first." */
  chooseFirst: string;
  /** How many options a multiple choice has chosen: "2 selected." */
  selected: (count: number) => string;
}

declare module "@hitl-kit/react" {
  /** The texts of `@hitl-kit/widgets`, given to the same `<WidgetTextsProvider>`. */
  interface ExtraWidgetTexts extends WidgetKitTexts {}
}

/** The English texts of {@link WidgetKitTexts}, under every override. */
export const defaultWidgetKitTexts: WidgetKitTexts = {
  send: "Send",
  choose: "Choose",
  useTemplate: "Use template",
  yourAnswer: "Your answer",
  allow: "Allow this action?",
  reason: "Reason",
  optional: "(optional)",
  writeFirst: "Write an answer first.",
  atLeast: (count) => `Write at least ${count} characters.`,
  atMost: (count) => `Write at most ${count} characters.`,
  count: (count, max) => (max ? `${count} / ${max} characters` : `${count} characters`),
  sendKeys: "Ctrl+Enter to send",
  sendKeysApple: "⌘+Enter to send",
  noOptions: "There are no options to choose from.",
  options: "Options",
  upTo: (max) => `You can choose up to ${max}.`,
  chooseFirst: "Choose an option first.",
  selected: (count) => `${count} selected.`,
};

/** @internal The texts a widget of this package shows: React's and this package's, with the app's overrides. */
export function useKitTexts(): WidgetTexts & WidgetKitTexts {
  return useWidgetTexts(defaultWidgetKitTexts);
}
