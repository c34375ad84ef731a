// Restores saved window geometry only where it is still visible: monitors get unplugged and resolutions
// change between runs, and a window placed off-screen looks like an app that failed to start.
export interface Rect {
  x: number
  y: number
  width: number
  height: number
}

export const DEFAULT_SIZE = { width: 1280, height: 820 }
export const MIN_SIZE = { width: 720, height: 480 }
/** How much of the window (incl. its title bar area) must lie on a display to keep the saved position. */
const MIN_VISIBLE = { width: 160, height: 80 }

function overlap(a: Rect, b: Rect): { width: number; height: number } {
  const width = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x)
  const height = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y)
  return { width: Math.max(0, width), height: Math.max(0, height) }
}

/**
 * Picks the bounds for a new window from the saved state and the displays' work areas.
 * Size is clamped to the chosen work area; a position with too little on any display is replaced by a
 * centred one on the primary display (workAreas[0]).
 */
export function fitBounds(
  saved: Partial<Rect> | undefined,
  workAreas: Rect[],
): { x?: number; y?: number; width: number; height: number } {
  const primary = workAreas[0]
  const want = {
    width: Math.max(MIN_SIZE.width, saved?.width ?? DEFAULT_SIZE.width),
    height: Math.max(MIN_SIZE.height, saved?.height ?? DEFAULT_SIZE.height),
  }
  if (!primary) return want
  if (saved && typeof saved.x === 'number' && typeof saved.y === 'number') {
    const rect = { x: saved.x, y: saved.y, ...want }
    // The top strip holds the title bar: it must be reachable to move the window.
    const titleStrip = { x: rect.x, y: rect.y, width: rect.width, height: Math.min(rect.height, 40) }
    const host = workAreas.find((wa) => {
      const o = overlap(rect, wa)
      return o.width >= MIN_VISIBLE.width && o.height >= MIN_VISIBLE.height && overlap(titleStrip, wa).height > 0
    })
    if (host) {
      const width = Math.min(rect.width, host.width)
      const height = Math.min(rect.height, host.height)
      // Pull the window fully inside the work area it mostly sits on.
      const x = Math.min(Math.max(rect.x, host.x), host.x + host.width - width)
      const y = Math.min(Math.max(rect.y, host.y), host.y + host.height - height)
      return { x, y, width, height }
    }
  }
  const width = Math.min(want.width, primary.width)
  const height = Math.min(want.height, primary.height)
  return {
    x: primary.x + Math.round((primary.width - width) / 2),
    y: primary.y + Math.round((primary.height - height) / 2),
    width,
    height,
  }
}
