import { plainErrorMessage, type RequestStatus } from "@hitl-kit/client";
import type { ReasonCode } from "@hitl-kit/protocol";
import { sentenceCase } from "./schema-form/schema-node.js";

/** The messages {@link SchemaForm} shows for an answer that fails its schema, the limits from the field's schema. */
export interface IssueTexts {
  /** A required field is empty: "This field is required." */
  required: string;
  /** Too short a text: "Use at least 3 characters." */
  minLength: (count: number) => string;
  /** Too long a text: "Use at most 120 characters." */
  maxLength: (count: number) => string;
  /** A text that does not match the field's `pattern`, with the field's `description` when it has one. */
  pattern: (description: string | undefined) => string;
  /** A text that is not of the field's `format` (`email`, `uri`, `date`, `date-time`, …): "Enter an email address." */
  format: (format: string) => string;
  /** "Enter a whole number." */
  integer: string;
  /** "Enter a number." */
  number: string;
  /** Below the field's `minimum`: "Enter 1 or more." */
  minimum: (limit: number) => string;
  /** Above the field's `maximum`: "Enter 10 or less." */
  maximum: (limit: number) => string;
  /** Too few options chosen: "Choose at least 2." */
  minItems: (count: number) => string;
  /** Too many options chosen: "Choose at most 3." */
  maxItems: (count: number) => string;
  /** A value that is none of the options: "Choose one of the options." */
  oneOf: string;
  /** JSON the JSON editor cannot parse, with the parser's own words. */
  json: (detail: string) => string;
}

/**
 * Every word `@hitl-kit/react`'s widgets show or announce: `WidgetFrame`, `FallbackWidget`,
 * `SchemaForm`, `ValueView`. A text that holds a number is a function, so a language can
 * place and format it. Give yours to {@link WidgetTextsProvider}; English by default
 * ({@link defaultWidgetTexts}). `ToolCallCard` and `@hitl-kit/widgets` add keys of their
 * own (see {@link ExtraWidgetTexts}).
 */
export interface WidgetTexts {
  /** The status badge of a widget, by status ("Waiting for you", "Sending…", "Answered", …). */
  status: Record<RequestStatus, string>;
  /** An approval's badge once approved: "Approved". */
  approved: string;
  /** An approval's badge once denied: "Denied". */
  denied: string;
  /** A form's submit button: "Submit". */
  submit: string;
  /** A submit button while the answer is on its way: "Sending…". */
  sending: string;
  /** Says no to the question; the model reads that the person declined: "Decline". */
  decline: string;
  /** The fallback form's way to leave a question unanswered; the tool gets a `cancelled` result: "Skip". */
  cancel: string;
  /** "Approve" */
  approve: string;
  /** "Deny" */
  deny: string;
  /** A settled widget declined without a reason: "No reason given." */
  noReason: string;
  /** A settled widget cancelled: "The request was cancelled without an answer." */
  cancelled: string;
  /**
   * Why the server cancelled a request, by its `reasonCode` (`new_message`, `stopped`,
   * `tool_timeout`, …), in place of the server's English `reason`. None by default: the
   * server's words show.
   */
  reasons: Partial<Record<ReasonCode, string>>;
  /** A settled widget expired: "The request expired before it was answered." */
  expired: string;
  /** A reason the person gave, quoted: “Too much”. */
  quote: (text: string) => string;
  /** By when an open request is to be answered, given the time as `deadline` formats it: "Answer by 14:05". */
  answerBy: (time: string) => string;
  /** A request's `expiresAt` as the person reads it: the local time through `Intl` ("14:05"), with the date when it is not today. */
  deadline: (date: Date) => string;
  /** Said once, politely, shortly before a request expires: "Less than 2 minutes left to answer." */
  expiresSoon: (minutes: number) => string;
  /** Said once, politely, when a request's time has run out while it is still open (before the server settles it as expired): "The time to answer has run out." */
  timeUp: string;
  /** Above what the person had typed when the request was cancelled or expired before they sent it: "Your answer was not sent. Here is what you typed, to copy." */
  unsent: string;
  /** `ValueView` of no value or an empty object: "Nothing". */
  nothing: string;
  /** The label of a field made from its key when the schema has no `title` (`templateId` → "Template id"). */
  label: (key: string) => string;
  /** A tool's name, in a widget's header and a tool call's card: `refund_charge` → "Refund charge". */
  tool: (toolName: string) => string;
  /** The label of an answer that is not an object's field: "Answer". */
  answer: string;
  /** The empty choice of a select: "Choose…". */
  pick: string;
  /** The limits of a multiple choice: "Choose 2.", "Choose 1 to 3.", "Choose at least 2.", "Choose up to 3." (`max` 0: none). */
  limits: (min: number, max: number) => string;
  /** The label of the JSON editor, from the answer's label: "Answer (JSON)". */
  json: (label: string) => string;
  /** The JSON editor's help: "Enter the answer as JSON that matches the expected shape." */
  jsonHelp: string;
  /** The JSON editor's disclosure of the schema: "Expected shape". */
  shape: string;
  /** The message of an answer that was not sent (its `code` and `message`); `plainErrorMessage` by default. */
  error: (error: { code?: string; message: string }) => string;
  /** The message of an answer refused with issues, shown above them or beside their fields: "The answer does not fit what was asked. Check it, then send it again." */
  notFit: string;
  /** `SchemaForm`'s messages for an answer that fails its schema. */
  issues: IssueTexts;
}

/**
 * Texts beyond {@link WidgetTexts} whose English defaults ship with the widget that shows
 * them (an app that does not render it does not download them), so one
 * {@link WidgetTextsProvider} takes them all, type-checked: `ToolCallCard`'s `call` here,
 * and `@hitl-kit/widgets` adds its own. Add yours by augmentation,
 * `declare module "@hitl-kit/react" { interface ExtraWidgetTexts { skip: string } }`, and
 * read them with `useWidgetTexts(yourDefaults)`.
 */
export interface ExtraWidgetTexts {
  /** `ToolCallCard`'s states ("Running…", "Done", "Failed") and headings ("Input", "Result", "What happened"). */
  call: Record<"running" | "done" | "failed" | "input" | "result" | "failure", string>;
}

/** The overrides a {@link WidgetTextsProvider} takes: any keys, and any keys of a group (`status`, `issues`, …). */
export type WidgetTextOverrides = {
  [Key in keyof (WidgetTexts & ExtraWidgetTexts)]?: (WidgetTexts & ExtraWidgetTexts)[Key] extends (
    ...args: never[]
  ) => unknown
    ? (WidgetTexts & ExtraWidgetTexts)[Key]
    : (WidgetTexts & ExtraWidgetTexts)[Key] extends object
      ? Partial<(WidgetTexts & ExtraWidgetTexts)[Key]>
      : (WidgetTexts & ExtraWidgetTexts)[Key];
};

const formats: Record<string, string> = {
  email: "an email address",
  uri: "a URL such as https://example.com",
  url: "a URL such as https://example.com",
  date: "a date",
  "date-time": "a date and time",
};

/** The English texts of {@link WidgetTexts}, the defaults under every override. */
export const defaultWidgetTexts: WidgetTexts = {
  status: {
    pending: "Waiting for you",
    submitting: "Sending…",
    resolved: "Answered",
    declined: "Declined",
    cancelled: "Cancelled",
    expired: "Expired",
    error: "Not sent",
  },
  approved: "Approved",
  denied: "Denied",
  submit: "Submit",
  sending: "Sending…",
  decline: "Decline",
  cancel: "Skip",
  approve: "Approve",
  deny: "Deny",
  noReason: "No reason given.",
  cancelled: "The request was cancelled without an answer.",
  reasons: {},
  expired: "The request expired before it was answered.",
  quote: (text) => `“${text}”`,
  answerBy: (time) => `Answer by ${time}`,
  deadline: (date) =>
    new Intl.DateTimeFormat(undefined, {
      ...(date.toDateString() === new Date().toDateString() ? {} : { dateStyle: "medium" }),
      timeStyle: "short",
    }).format(date),
  expiresSoon: (minutes) => `Less than ${minutes} minutes left to answer.`,
  timeUp: "The time to answer has run out.",
  unsent: "Your answer was not sent. Here is what you typed, to copy.",
  nothing: "Nothing",
  label: sentenceCase,
  tool: sentenceCase,
  answer: "Answer",
  pick: "Choose…",
  limits: (min, max) =>
    min && max
      ? min === max
        ? `Choose ${min}.`
        : `Choose ${min} to ${max}.`
      : min
        ? `Choose at least ${min}.`
        : `Choose up to ${max}.`,
  json: (label) => `${label} (JSON)`,
  jsonHelp: "Enter the answer as JSON that matches the expected shape.",
  shape: "Expected shape",
  error: plainErrorMessage,
  notFit: "The answer does not fit what was asked. Check it, then send it again.",
  issues: {
    required: "This field is required.",
    minLength: (count) => `Use at least ${count} characters.`,
    maxLength: (count) => `Use at most ${count} characters.`,
    pattern: (description) => (description ? `Does not match: ${description}` : "Does not match the expected format."),
    format: (format) => `Enter ${formats[format] ?? `a valid ${format}`}.`,
    integer: "Enter a whole number.",
    number: "Enter a number.",
    minimum: (limit) => `Enter ${limit} or more.`,
    maximum: (limit) => `Enter ${limit} or less.`,
    minItems: (count) => `Choose at least ${count}.`,
    maxItems: (count) => `Choose at most ${count}.`,
    oneOf: "Choose one of the options.",
    json: (detail) => `This is not valid JSON (${detail}).`,
  },
};
