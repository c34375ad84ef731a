// Media queries the layout and the controller share (styles.css holds the same breakpoints).

/** Where the Inspector is a drawer over the conversation instead of a column beside it. */
export const INSPECTOR_OVERLAY = '(max-width: 900px)'

/** True when the Inspector would cover the conversation (false where media queries are unknown). */
export function inspectorCovers(): boolean {
  return typeof window !== 'undefined' && typeof window.matchMedia === 'function' && window.matchMedia(INSPECTOR_OVERLAY).matches
}
