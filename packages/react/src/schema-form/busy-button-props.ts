/** What {@link busyButtonProps} puts on a button. */
export interface BusyButtonProps {
  /** `true` while busy: announced as unavailable, yet still focusable. */
  "aria-disabled": true | undefined;
  /** The press, ignored while busy; none for a submit button. */
  onClick: (() => void) | undefined;
}

/**
 * A widget button's props while its answer may be on its way: `aria-disabled`, not
 * `disabled`, so the button keeps focus (a disabled button drops it to the page) and stays
 * in the tab order, and a press while `busy` does nothing. A submit button passes no
 * `onPress`; its form's submit handler must ignore a submit while busy.
 * @example
 * const busy = props.status === "submitting";
 * <button type="button" {...busyButtonProps(busy, () => props.decline())}>Decline</button>
 */
export function busyButtonProps(busy: boolean, onPress?: () => void): BusyButtonProps {
  return {
    "aria-disabled": busy || undefined,
    onClick: onPress && (() => (busy ? undefined : onPress())),
  };
}
