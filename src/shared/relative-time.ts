// How long ago something happened, in the words the window's sidebar and the CLI's session list both use.

export function relativeTime(ts: number | undefined, now = Date.now()): string {
  if (!ts) return ''
  const d = Math.max(0, now - ts)
  if (d < 45_000) return 'just now'
  if (d < 3_600_000) return `${Math.round(d / 60_000)} min ago`
  if (d < 86_400_000) return `${Math.round(d / 3_600_000)} h ago`
  if (d < 7 * 86_400_000) return `${Math.round(d / 86_400_000)} d ago`
  return new Date(ts).toLocaleDateString()
}
