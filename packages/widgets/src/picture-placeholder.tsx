"use client";

/**
 * What a widget draws instead of a picture or swatch it refused to render (see
 * `safeImageUrl` and `safeCssColor`): a neutral box with the option's label, so nothing
 * is fetched and the person still sees which option it is.
 */
export function PicturePlaceholder({ label }: { label: string }) {
  return (
    <span className="hitl-thumbnail hitl-placeholder" data-placeholder="">
      {label}
    </span>
  );
}
