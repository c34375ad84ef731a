// A base URL typed without its scheme, completed the same way in Settings and by config.patch (the CLI).

/**
 * `localhost:11434/v1` or `api.example.com/v1` typed without its scheme (`new URL` reads `localhost:` as
 * one): http:// for this machine and the local network (IPs, single labels, .local/.lan), else https://.
 * Anything else is left as typed, for the form to refuse.
 */
export function withScheme(typed: string): string {
  const m = /^([a-z0-9.-]+|\[[0-9a-f:.]+\])(:\d{1,5})?(\/\S*)?$/i.exec(typed)
  if (!m || /^[a-z][a-z0-9+.-]*:\/\//i.test(typed)) return typed
  const host = m[1].toLowerCase()
  const local = host === 'localhost' || host.startsWith('[') || /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || !host.includes('.') || /\.(local|lan|internal|home\.arpa)$/.test(host)
  // a single word with neither port nor path is no address anyone means ("notaurl")
  if (!host.includes('.') && !host.startsWith('[') && !m[2] && host !== 'localhost') return typed
  return `${local ? 'http' : 'https'}://${typed}`
}
