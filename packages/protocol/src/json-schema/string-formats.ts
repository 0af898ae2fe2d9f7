const DATE = /^(\d{4})-(\d\d)-(\d\d)$/;
const TIME = /^([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?(z|[+-]([01]\d|2[0-3]):[0-5]\d)?$/i;

/** Whether `text` is a calendar date (`2024-02-29`), leap years included. */
function isDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number) as [number, number, number];
  return month >= 1 && month <= 12 && day >= 1 && day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Whether `text` parses as an absolute URL. */
function isUrl(text: string): boolean {
  try {
    return Boolean(new URL(text));
  } catch {
    return false;
  }
}

/** An RFC 5321 address as JSON Schema's `email` means it: a dot-atom of ASCII, `@`, a domain of two labels or more. */
const EMAIL =
  /^[a-z\d!#$%&'*+/=?^_`{|}~-]+(\.[a-z\d!#$%&'*+/=?^_`{|}~-]+)*@([a-z\d]([a-z\d-]{0,61}[a-z\d])?\.)+[a-z\d]([a-z\d-]{0,61}[a-z\d])?$/i;

/**
 * An RFC 3986 URI as JSON Schema's `uri` means it: a scheme, then only the characters a URI
 * may hold (no space, nothing unencoded beyond ASCII, `%` before two hex digits), parsing as a URL.
 */
const URI = /^[a-z][a-z\d+.-]*:([\w\-.~:/?#[\]@!$&'()*+,;=]|%[\da-f]{2})*$/i;

const formats: Record<string, (text: string) => boolean> = {
  email: (text) => EMAIL.test(text),
  uri: (text) => URI.test(text) && isUrl(text),
  url: isUrl,
  date: isDate,
  time: (text) => TIME.test(text),
  // RFC 3339: the offset is required in a date-time.
  "date-time": (text) => {
    // Split at the first separator by a search, not a lazy pattern: `^(.*?)[t\s](.*)$` takes
    // time quadratic in the length on a string of separators that cannot match.
    const at = text.search(/[t\s]/i);
    return at >= 0 && isDate(text.slice(0, at)) && TIME.exec(text.slice(at + 1))?.[4] !== undefined;
  },
  uuid: (text) => /^[\da-f]{8}-([\da-f]{4}-){3}[\da-f]{12}$/i.test(text),
  ipv4: (text) => /^((25[0-5]|2[0-4]\d|1?\d?\d)(\.(?!$)|$)){4}$/.test(text),
  hostname: (text) =>
    text.length <= 253 && /^[a-z\d]([a-z\d-]{0,61}[a-z\d])?(\.[a-z\d]([a-z\d-]{0,61}[a-z\d])?)*$/i.test(text),
  // ISO 8601 durations: weeks alone, or date and time parts in order, with at least one part.
  duration: (text) => /^P(\d+W|(?=\d|T\d)(\d+Y)?(\d+M)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?)$/.test(text),
};

/**
 * Whether a string fits a JSON Schema `format`: `email`, `uri`/`url`, `date`, `time`
 * (offset optional), `date-time`, `uuid`, `ipv4`, `hostname`, `duration`. Any other
 * format passes: tools may not use one without a `pattern` beside it (see
 * `findUnsupportedKeyword`).
 */
export function matchesFormat(format: string, text: string): boolean {
  return formats[format]?.(text) ?? true;
}

/** Whether {@link matchesFormat} checks this format. */
export function isKnownFormat(format: string): boolean {
  return Object.hasOwn(formats, format);
}
