/**
 * How far the page scrolls sideways, and the outermost elements reaching past its right edge, so
 * a failure names what to fix; null when nothing does. Runs in the page.
 */
export function sidewaysOverflow(): string | null {
  interface El {
    tagName: string;
    id: string;
    className: unknown;
    children: ArrayLike<El>;
    getBoundingClientRect(): { right: number };
  }
  const doc = (
    globalThis as unknown as {
      document: { documentElement: El & { scrollWidth: number; clientWidth: number }; body: El };
    }
  ).document;
  const root = doc.documentElement;
  const by = root.scrollWidth - root.clientWidth;
  if (by <= 0) return null;
  const past: string[] = [];
  const walk = (el: El) => {
    if (el.getBoundingClientRect().right > root.clientWidth + 1) {
      const name = `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}${typeof el.className === 'string' && el.className ? '.' + el.className.split(' ').join('.') : ''}`;
      const inner = Array.from(el.children).some(
        (c) => c.getBoundingClientRect().right > root.clientWidth + 1,
      );
      if (!inner) return void past.push(name);
    }
    Array.from(el.children).forEach(walk);
  };
  walk(doc.body);
  return `${by} px sideways (${past.slice(0, 5).join(', ')})`;
}
