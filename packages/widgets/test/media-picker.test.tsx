import { cleanup, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { type MediaItem, MediaPicker, type MediaPickerProps } from "../src/index.js";
import { requestProps } from "./request-props.js";

afterEach(cleanup);

const items: MediaItem[] = [
  { id: "m1", src: "/media/sea.svg", alt: "Sunrise over a blue sea", label: "Sea" },
  { id: "m2", src: "/media/hills.svg", alt: "Green hills at noon", label: "Hills" },
  { id: "m3", src: "/media/dunes.svg", alt: "Desert dunes" },
];

function renderResolved(value: unknown, props: Partial<Pick<MediaPickerProps, "multiple" | "toAnswer">> = {}) {
  const resolution = { action: "accept" as const, value };
  const { container } = render(
    <MediaPicker {...requestProps({})} items={items} status="resolved" resolution={resolution} {...props} />,
  );
  const widget = container.firstElementChild as HTMLElement;
  expect(widget.dataset.state).toBe("resolved");
  return widget;
}

/** The chosen pictures a resolved picker shows: each thumbnail's source with the label beside it. */
function shownPictures(widget: HTMLElement) {
  return within(widget)
    .getAllByRole("listitem")
    .map((item) => ({ src: item.querySelector("img")?.getAttribute("src"), label: item.textContent }));
}

describe("MediaPicker, once answered", () => {
  it("shows the chosen pictures of a multiple answer, with their labels", () => {
    const widget = renderResolved({ mediaIds: ["m1", "m3"] }, { multiple: true });
    expect(shownPictures(widget)).toEqual([
      { src: "/media/sea.svg", label: "Sea" },
      { src: "/media/dunes.svg", label: "Desert dunes" },
    ]);
    expect(screen.queryByText(/Media ids/)).toBeNull();
  });

  it("shows the chosen pictures of a multiple answer made by a custom toAnswer", () => {
    const toAnswer = (chosen: MediaItem[]) => ({ count: chosen.length, pictures: chosen.map((m) => ({ ref: m.id })) });
    const widget = renderResolved({ count: 2, pictures: [{ ref: "m2" }, { ref: "m3" }] }, { multiple: true, toAnswer });
    expect(shownPictures(widget)).toEqual([
      { src: "/media/hills.svg", label: "Hills" },
      { src: "/media/dunes.svg", label: "Desert dunes" },
    ]);
  });

  it("shows the chosen picture of a single answer, by default and with a custom toAnswer", () => {
    expect(shownPictures(renderResolved({ mediaId: "m2" }))).toEqual([{ src: "/media/hills.svg", label: "Hills" }]);
    cleanup();
    const toAnswer = (chosen: MediaItem[]) => ({ picture: chosen[0]?.src });
    expect(shownPictures(renderResolved({ picture: "/media/sea.svg" }, { toAnswer }))).toEqual([
      { src: "/media/sea.svg", label: "Sea" },
    ]);
  });

  it("shows a multiple answer that names whole media objects", () => {
    const toAnswer = (chosen: MediaItem[]) => ({ media: chosen });
    const widget = renderResolved({ media: [items[0]] }, { multiple: true, toAnswer });
    expect(shownPictures(widget)).toEqual([{ src: "/media/sea.svg", label: "Sea" }]);
  });
});
