/** An `rgb()`/`rgba()` colour as getComputedStyle gives it, as [r, g, b]. */
function channels(color: string): [number, number, number] {
  const match = /rgba?\(([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)/.exec(color);
  if (!match) throw new Error(`Not an rgb() colour: ${color}`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

function luminance(color: string): number {
  const [r, g, b] = channels(color).map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The WCAG contrast ratio of two computed colours, from 1 to 21; 1 when either is transparent (nothing is drawn). */
export function contrastRatio(a: string, b: string): number {
  if ([a, b].some((color) => color === "transparent" || /^rgba\(.*,\s*0\)$/.test(color))) return 1;
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}
