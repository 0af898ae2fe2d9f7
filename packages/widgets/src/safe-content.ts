// A widget's pictures and colours often come from the model (a template's preview, its
// palette), and the model's output is not trusted: a URL it writes can run script or
// reach the person's own machine, a colour can smuggle `url(…)` into a gradient. These
// checks let through only what cannot. An `https:` picture still tells its host that it
// was shown, with whatever the model put into the URL; docs/security.md says how an app
// pins the hosts.

/** Two bases no real page has: a URL that resolves to each one's own origin is relative to the page's. */
const PAGES = ["https://a.invalid", "https://b.invalid"];

/** Image types a `data:` URL may carry: raster formats only (SVG can hold script). */
const DATA_IMAGE = /^data:image\/(png|jpeg|gif|webp|avif)[;,]/i;

/** A control character or space, which browsers strip from a URL's ends before parsing it. */
const loose = (char: string | undefined) => char === undefined || char <= " " || char === "\u007f";

/**
 * The URL when a widget may load it as a picture, else `undefined`:
 * - `https:` URLs, on any host;
 * - same-origin relative URLs (`/media/x.png`, `media/x.png`) — never `//host/x` or
 *   `/\host/x`, which leave the page's origin;
 * - `data:image/png|jpeg|gif|webp|avif` — never `data:image/svg+xml`, whose script runs
 *   when the picture is opened on its own.
 *
 * Everything else is refused: `javascript:`, `blob:`, `data:text/html`, and `http:` even
 * on `localhost` (a model-written `http://localhost:…/` URL would make the person's
 * browser call services on their own machine; in development, serve pictures from the
 * app's origin instead). So are URLs with spaces or control characters at their ends.
 * @example
 * safeImageUrl("/templates/bold.svg"); // "/templates/bold.svg"
 * safeImageUrl("javascript:alert(1)"); // undefined
 */
export function safeImageUrl(url: unknown): string | undefined {
  if (typeof url !== "string" || loose(url[0]) || loose(url.at(-1))) return undefined;
  if (DATA_IMAGE.test(url)) return url;
  try {
    if (PAGES.every((page) => new URL(url, page).origin === page)) return url;
    // Only an explicit scheme: `//host/x` takes the page's, which may be http.
    return /^https:/i.test(url) && new URL(url).protocol === "https:" ? url : undefined;
  } catch {
    return undefined;
  }
}

const NUMBER = "[+-]?(?:\\d+\\.?\\d*|\\.\\d+)(?:e[+-]?\\d+)?";
const PART = `(?:${NUMBER}(?:%|deg|grad|rad|turn)?|none)`;
const HEX = /^#(?:[\da-f]{3,4}|[\da-f]{6}|[\da-f]{8})$/i;
const COMMAS = new RegExp(`^(?:rgba?|hsla?)\\(\\s*${PART}(?:\\s*,\\s*${PART}){2,3}\\s*\\)$`, "i");
const SPACES = new RegExp(`^(?:rgba?|hsla?)\\(\\s*${PART}(?:\\s+${PART}){2}(?:\\s*/\\s*${PART})?\\s*\\)$`, "i");

/** The CSS named colours (CSS Color 4), `transparent` and `currentcolor`. */
const NAMED = new Set(
  (
    "aliceblue antiquewhite aqua aquamarine azure beige bisque black blanchedalmond blue blueviolet brown " +
    "burlywood cadetblue chartreuse chocolate coral cornflowerblue cornsilk crimson cyan darkblue darkcyan " +
    "darkgoldenrod darkgray darkgreen darkgrey darkkhaki darkmagenta darkolivegreen darkorange darkorchid " +
    "darkred darksalmon darkseagreen darkslateblue darkslategray darkslategrey darkturquoise darkviolet " +
    "deeppink deepskyblue dimgray dimgrey dodgerblue firebrick floralwhite forestgreen fuchsia gainsboro " +
    "ghostwhite gold goldenrod gray green greenyellow grey honeydew hotpink indianred indigo ivory khaki " +
    "lavender lavenderblush lawngreen lemonchiffon lightblue lightcoral lightcyan lightgoldenrodyellow " +
    "lightgray lightgreen lightgrey lightpink lightsalmon lightseagreen lightskyblue lightslategray " +
    "lightslategrey lightsteelblue lightyellow lime limegreen linen magenta maroon mediumaquamarine " +
    "mediumblue mediumorchid mediumpurple mediumseagreen mediumslateblue mediumspringgreen mediumturquoise " +
    "mediumvioletred midnightblue mintcream mistyrose moccasin navajowhite navy oldlace olive olivedrab " +
    "orange orangered orchid palegoldenrod palegreen paleturquoise palevioletred papayawhip peachpuff peru " +
    "pink plum powderblue purple rebeccapurple red rosybrown royalblue saddlebrown salmon sandybrown " +
    "seagreen seashell sienna silver skyblue slateblue slategray slategrey snow springgreen steelblue tan " +
    "teal thistle tomato turquoise violet wheat white whitesmoke yellow yellowgreen transparent currentcolor"
  ).split(" "),
);

/**
 * The colour when it is a plain CSS colour, else `undefined`: a hex colour (`#rgb`,
 * `#rgba`, `#rrggbb`, `#rrggbbaa`), `rgb()`/`rgba()`/`hsl()`/`hsla()` of numbers (comma
 * or space syntax, with an optional alpha), or a named colour. Nothing else passes — no
 * `url(…)`, `var(…)`, `image-set(…)` or a second value after a comma — so a colour put
 * into a gradient cannot make the stylesheet fetch anything.
 * @example
 * safeCssColor("#f43f5e"); // "#f43f5e"
 * safeCssColor("red), url(https://evil.example/?d=1"); // undefined
 */
export function safeCssColor(color: unknown): string | undefined {
  if (typeof color !== "string" || color.length > 80) return undefined;
  const value = color.trim();
  const fits = HEX.test(value) || COMMAS.test(value) || SPACES.test(value) || NAMED.has(value.toLowerCase());
  return fits ? value : undefined;
}
