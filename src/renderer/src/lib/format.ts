// Small display formatters (durations, token counts, cost). Relative times: src/shared/relative-time.ts.

let intFormat: Intl.NumberFormat | undefined

/** 12,345 in the user's locale. One shared formatter: creating the first one loads ICU data (~20 ms),
 * which warm-up.tsx pays while idle instead of the moment a run finishes. */
export function formatInt(n: number): string {
  intFormat ??= new Intl.NumberFormat()
  return intFormat.format(n)
}

export function formatDuration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms) || ms < 0) return ''
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`
  const m = Math.floor(ms / 60_000)
  const s = Math.round((ms % 60_000) / 1000)
  return `${m} min ${s} s`
}

export function formatTokens(n: number | undefined): string {
  if (!n) return ''
  if (n < 1000) return `${n} tokens`
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k tokens`
  return `${(n / 1_000_000).toFixed(1)}M tokens`
}

export function formatCost(usd: number | undefined): string {
  if (!usd) return ''
  if (usd < 0.01) return `$${usd.toFixed(4)}`
  return `$${usd.toFixed(2)}`
}

export function clockTime(ts: number): string {
  const d = new Date(ts)
  const p = (n: number, w = 2) => String(n).padStart(w, '0')
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`
}

/** "512 B", "3.4 KB", "12.5 MB" (binary units, like the attachment limits). */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`
  if (n < 1024 * 1024) return `${Math.round((n / 1024) * 10) / 10} KB`
  return `${Math.round((n / 1024 / 1024) * 10) / 10} MB`
}
