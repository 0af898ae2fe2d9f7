"use client";

import { type JsonSchema, type ValidationIssue, validateJsonSchema } from "@hitl-kit/protocol";
import { type FormEvent, type ReactNode, useCallback, useEffect, useId, useMemo, useRef, useState } from "react";
import { useWidgetTexts } from "../use-widget-texts.js";
import { busyButtonProps } from "./busy-button-props.js";
import { focusFirstInvalid } from "./focus-first-invalid.js";
import { FormContext, type FormContextValue } from "./form-context.js";
import { type Draft, draftToValue, initialDraft, setDraftAt, typedText } from "./form-draft.js";
import { issueMessage, issuesByField, pathKey } from "./issue-message.js";
import { JsonEditor } from "./json-editor.js";
import { SchemaField } from "./schema-field.js";
import { type FormNode, labelOf, toFormNode } from "./schema-node.js";
import { useReportUnsent } from "./unsent-answer.js";

/** Props of {@link SchemaForm}. */
export interface SchemaFormProps<Value = unknown> {
  /** The JSON Schema of the value; anything the form cannot express is edited as JSON. */
  schema: JsonSchema;
  /** The starting value; fields without one start from the schema's `default`. */
  defaultValue?: unknown;
  /** Called with a value that satisfies `schema`, coerced to its types. */
  onSubmit: (value: Value) => void;
  /** Issues from elsewhere (the server's 422) to show next to their fields. */
  issues?: readonly ValidationIssue[];
  /**
   * Disables every field, for example while an answer is being sent. The submit button stays
   * focusable (`aria-disabled`, so focus is not lost) and a submit is ignored.
   */
  disabled?: boolean;
  /** The submit button's text; the widget texts' `submit` ("Submit") by default. */
  submitLabel?: string;
  /** Extra buttons, placed after the submit button. */
  children?: ReactNode;
  /** An extra class for the form, added after `hitl-form`. */
  className?: string;
}

/**
 * A form built from a JSON Schema: strings (with email, URL, date and date-time inputs),
 * numbers, booleans, single and multiple choices, nested objects. It validates with the
 * schema before `onSubmit`, shows each issue next to its field and focuses the first
 * invalid one. A schema it cannot express is edited as JSON, validated the same way.
 * @example
 * <SchemaForm schema={request.answerSchema} onSubmit={respond} issues={error?.issues} />
 */
export function SchemaForm<Value = unknown>(props: SchemaFormProps<Value>) {
  const node = useMemo(() => toFormNode(props.schema), [props.schema]);
  if (!node) return <JsonEditor {...props} />;
  return <NodeForm {...props} node={node} />;
}

function collectNodes(node: FormNode, path: string[], into: Map<string, FormNode>): Map<string, FormNode> {
  into.set(pathKey(path), node);
  if (node.kind === "object") for (const p of node.properties) collectNodes(p.node, [...path, p.key], into);
  return into;
}

function NodeForm<Value>(props: SchemaFormProps<Value> & { node: FormNode }) {
  const texts = useWidgetTexts();
  const { node, schema, disabled = false, submitLabel = texts.submit, children, className } = props;
  const idBase = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const [draft, setDraftState] = useState<Draft>(() => initialDraft(node, props.defaultValue));
  const [attempted, setAttempted] = useState(false);
  const [focusRequest, setFocusRequest] = useState(0);
  const nodes = useMemo(() => collectNodes(node, [], new Map()), [node]);

  const value = useMemo(() => draftToValue(node, draft, true), [node, draft]);
  useReportUnsent(
    useMemo(() => typedText(node, draft, (field, key) => labelOf(field.schema, key, texts)), [node, draft, texts]),
  );
  const ownIssues = useMemo(() => {
    if (!attempted) return [];
    const result = validateJsonSchema(schema, value);
    return result.ok ? [] : result.issues;
  }, [attempted, schema, value]);
  const shown = ownIssues.length > 0 ? ownIssues : (props.issues ?? []);

  const messages = useMemo(() => {
    const byField = new Map<string, string[]>();
    for (const [key, issues] of issuesByField(shown, new Set(nodes.keys()))) {
      const field = nodes.get(key);
      const depth = (JSON.parse(key) as string[]).length;
      const lines = issues.map((issue) => {
        const text = issueMessage(issue.message, field?.schema, texts.issues);
        const rest = issue.path.slice(depth);
        return field?.kind === "object" && rest.length > 0 ? `${rest.join(".")}: ${text}` : text;
      });
      byField.set(key, [...new Set(lines)]);
    }
    return byField;
  }, [shown, nodes, texts]);

  // Server issues arrive after the answer was sent: move focus to the first one.
  // Issues present on mount are only shown; where focus goes then is the widget's call.
  const mounted = useRef(false);
  useEffect(() => {
    if (mounted.current && props.issues && props.issues.length > 0) setFocusRequest((n) => n + 1);
    mounted.current = true;
  }, [props.issues]);
  useEffect(() => {
    if (focusRequest > 0 && formRef.current) focusFirstInvalid(formRef.current);
  }, [focusRequest]);

  const setDraft = useCallback(
    (path: readonly string[], next: Draft) => setDraftState((current) => setDraftAt(current, path, next)),
    [],
  );
  const context = useMemo<FormContextValue>(
    () => ({ idBase, draft, setDraft, messages, disabled }),
    [idBase, draft, setDraft, messages, disabled],
  );

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (disabled) return;
    setAttempted(true);
    if (!validateJsonSchema(schema, value).ok) {
      setFocusRequest((n) => n + 1);
      return;
    }
    props.onSubmit(value as Value);
  }

  return (
    <form ref={formRef} className={["hitl-form", className].filter(Boolean).join(" ")} noValidate onSubmit={submit}>
      <FormContext.Provider value={context}>
        <fieldset className="hitl-form__fields" disabled={disabled}>
          <SchemaField node={node} path={[]} required />
        </fieldset>
      </FormContext.Provider>
      <div className="hitl-actions">
        <button type="submit" className="hitl-button hitl-button--primary" {...busyButtonProps(disabled)}>
          {submitLabel}
        </button>
        {children}
      </div>
    </form>
  );
}
