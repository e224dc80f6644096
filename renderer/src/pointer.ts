/**
 * Where the mouse pointer last moved to, in client coordinates (null before it has moved). A list
 * that changes under a resting pointer gets mouse events at that same spot from the browser; a list
 * that selects on hover compares with this to tell them from a real move (command-palette.tsx).
 */
let last: { readonly x: number; readonly y: number } | null = null;

if (typeof window !== 'undefined') {
  window.addEventListener(
    'mousemove',
    (e) => {
      last = { x: e.clientX, y: e.clientY };
    },
    { capture: true, passive: true },
  );
}

export function pointerNow(): { readonly x: number; readonly y: number } | null {
  return last;
}
