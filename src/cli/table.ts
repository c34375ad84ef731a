// Plain-text tables for the CLI's listings: columns padded to their widest cell, two spaces apart, the
// last column not padded (no trailing blanks); and sizes as a person reads them.

/** The header line, then one line per row. */
export function tableLines(head: string[], rows: string[][]): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)))
  const line = (cells: string[]) => cells.map((v, i) => (i === cells.length - 1 ? v : v.padEnd(widths[i]))).join('  ')
  return [line(head), ...rows.map(line)]
}

/** 2 KB, 3.4 MB: kilobytes below a megabyte (rounded up, so something is never "0") */
export function sizeText(bytes: number): string {
  const mb = bytes / 1024 / 1024
  return mb < 1 ? `${Math.ceil(bytes / 1024)} KB` : `${mb.toFixed(1)} MB`
}
