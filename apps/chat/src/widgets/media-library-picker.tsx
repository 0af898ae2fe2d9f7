import { WidgetFrame, type WidgetProps } from "@hitl-kit/react";
import { MediaPicker } from "@hitl-kit/widgets";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { mediaLibraryUrl } from "../shared/endpoint.js";
import type { Media } from "../shared/tools.js";

/** React Query options for the media library the demo's server serves at `GET /api/media`. */
export function mediaLibraryQueryOptions(url = mediaLibraryUrl) {
  return queryOptions({
    queryKey: ["chat", "media-library", url] as const,
    queryFn: async ({ signal }): Promise<Media[]> => {
      const response = await fetch(url, { signal });
      if (!response.ok) throw new Error(`The media library answered ${response.status}.`);
      return ((await response.json()) as { items: Media[] }).items;
    },
    staleTime: 5 * 60_000,
  });
}

/** Props of {@link MediaLibraryPicker}: the `pick_media` request. */
export type MediaLibraryPickerProps = WidgetProps<{ max: number }, { mediaIds: string[] }>;

const open = new Set(["pending", "submitting", "error"]);

/**
 * The `pick_media` widget: loads the media library with React Query and offers it as a
 * grid of thumbnails (up to `input.max`). Once answered, it shows the chosen pictures.
 * @example
 * widgets.add("pick_media", MediaLibraryPicker);
 */
export function MediaLibraryPicker(props: MediaLibraryPickerProps) {
  const library = useQuery(mediaLibraryQueryOptions());
  const items = library.data ?? [];
  // An answered picker shows its pictures once the library is in (the ids until then).
  if (open.has(props.status) && (library.isPending || library.isError)) {
    return (
      <WidgetFrame {...props} className="hitl-media-picker" autoFocus={false}>
        {library.isPending ? (
          <p className="hitl-muted" role="status">
            Loading your media library…
          </p>
        ) : (
          <div className="hitl-alert" role="alert">
            <p>{library.error.message}</p>
            <button type="button" className="hitl-button" onClick={() => void library.refetch()}>
              Try again
            </button>
          </div>
        )}
      </WidgetFrame>
    );
  }
  return (
    <MediaPicker {...props} items={items} multiple min={1} max={props.request.input.max} submitLabel="Use pictures" />
  );
}
