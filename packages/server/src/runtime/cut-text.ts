/**
 * The start of `text`, at most `max` UTF-16 units long, never ending in half a surrogate
 * pair: an emoji across the cut is left out whole rather than stored as a lone surrogate,
 * which is no character (a browser shows it as U+FFFD, UTF-8 cannot hold it).
 * @example
 * cutText(`${"a".repeat(79)}😀`, 80); // 79 letters
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}
