/**
 * @internal Focuses the first invalid control inside a container: an `aria-invalid`
 * input, the chosen (or first) radio of an invalid group, or else the first error text.
 */
export function focusFirstInvalid(container: HTMLElement): void {
  const target =
    container.querySelector<HTMLElement>('[aria-invalid="true"]') ??
    container.querySelector<HTMLElement>(".hitl-field__error");
  if (!target) return;
  if (target.matches("fieldset, [role=radiogroup]")) {
    const inner =
      target.querySelector<HTMLElement>("input:checked") ?? target.querySelector<HTMLElement>("input:not([disabled])");
    (inner ?? target).focus();
    return;
  }
  target.focus();
}
