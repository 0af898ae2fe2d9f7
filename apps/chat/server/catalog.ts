import type { Media, Template } from "../src/shared/tools.js";

/** The poster templates the demo offers; their previews are SVG files in `public/templates`. */
export const templates: Template[] = [
  {
    id: "bold",
    name: "Bold",
    description: "Big type on black",
    preview: "/templates/bold.svg",
    colors: ["#111", "#ffd60a"],
  },
  {
    id: "calm",
    name: "Calm",
    description: "Soft pastel gradient",
    preview: "/templates/calm.svg",
    colors: ["#cdb4db", "#a2d2ff"],
  },
  {
    id: "retro",
    name: "Retro",
    description: "Seventies stripes",
    preview: "/templates/retro.svg",
    colors: ["#e76f51", "#2a9d8f"],
  },
  {
    id: "minimal",
    name: "Minimal",
    description: "Grid and type",
    preview: "/templates/minimal.svg",
    colors: ["#4338ca", "#e1e4ea"],
  },
];

/** The media library `GET /api/media` serves; the pictures are SVG files in `public/media`. */
export const mediaLibrary: Media[] = [
  { id: "mountains", label: "Mountains", alt: "Snow-capped mountains under a pastel sky", src: "/media/mountains.svg" },
  { id: "ocean", label: "Ocean", alt: "The sun setting over ocean waves", src: "/media/ocean.svg" },
  { id: "city", label: "City", alt: "A city skyline at night with lit windows", src: "/media/city.svg" },
  { id: "forest", label: "Forest", alt: "A pine forest in morning light", src: "/media/forest.svg" },
  { id: "desert", label: "Desert", alt: "Sand dunes and a cactus under a pale sun", src: "/media/desert.svg" },
  { id: "flowers", label: "Flowers", alt: "Colourful flowers in a meadow", src: "/media/flowers.svg" },
  { id: "aurora", label: "Aurora", alt: "Green northern lights above dark hills", src: "/media/aurora.svg" },
  { id: "coffee", label: "Coffee", alt: "A steaming cup of coffee on a saucer", src: "/media/coffee.svg" },
];

/** The media objects for the chosen ids, in the order chosen; unknown ids are an error the model can read. */
export function lookupMedia(ids: readonly string[]): Media[] {
  return ids.map((id) => {
    const item = mediaLibrary.find((media) => media.id === id);
    if (!item) throw new Error(`There is no picture "${id}" in the media library.`);
    return item;
  });
}
