// The name sessions.fork gives a new session (Regenerate, Edit): "<title> (fork)", or "(fork 2)", "(fork 3)", …
// when a session has that name already, so regenerating twice does not make two sessions of the same name. Apart
// from session-title.ts: the window's first paint does not load it (the runtime and the FakeBridge name forks).

/** "<title> (fork)", else the first "(fork N)" not in `taken` (the names sessions have now), within 500 characters. */
export function numberedForkTitle(title: string, taken: Iterable<string>): string {
  const names = new Set(taken)
  // room for the suffix, so a long title keeps its number; not cut inside a surrogate pair (an emoji)
  const cut = title.slice(0, 480)
  const base = /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut
  for (let n = 1; ; n++) {
    const name = `${base} (fork${n > 1 ? ` ${n}` : ''})`
    if (!names.has(name)) return name
  }
}
