// Plain-text tables for the CLI's listings: columns padded to their widest cell, two spaces apart, the
// last column not padded (no trailing blanks); and sizes as a person reads them.

/**
 * A cell as one line of plain text: control characters (an escape sequence in a session title could move the
 * cursor, recolor or retitle the terminal) and line breaks become spaces.
 */
export const plainLine = (v: string): string => v.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ')

/** The header line, then one line per row. */
export function tableLines(head: string[], rows0: string[][]): string[] {
  const rows = rows0.map((r) => r.map(plainLine))
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)))
  const line = (cells: string[]) => cells.map((v, i) => (i === cells.length - 1 ? v : v.padEnd(widths[i]))).join('  ')
  return [line(head), ...rows.map(line)]
}

/** 2 KB, 3.4 MB: kilobytes below a megabyte (rounded up, so something is never "0") */
export function sizeText(bytes: number): string {
  const mb = bytes / 1024 / 1024
  return mb < 1 ? `${Math.ceil(bytes / 1024)} KB` : `${mb.toFixed(1)} MB`
}

/**
 * Text from a model or a tool as it may reach a terminal: line breaks and tabs stay, every other control
 * character goes (an escape sequence in a reply — say from a fetched web page — could rewrite the screen, set
 * the window title or the clipboard).
 */
export const terminalText = (v: string): string => v.replace(/\r(?!\n)/g, '').replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g, '')
