// Minimal YAML-frontmatter reader for SKILL.md: top-level `key: value` pairs, quoted values, and
// folded/literal blocks (`>` / `|`). Enough for name + description; anything fancier is ignored.

export function parseFrontmatter(text: string): Record<string, string> | undefined {
  const src = text.replace(/^\uFEFF/, '')
  if (!/^---\r?\n/.test(src)) return undefined
  const end = src.search(/\r?\n---\s*(\r?\n|$)/)
  if (end < 0) return undefined
  const body = src.slice(src.indexOf('\n') + 1, end + 1)
  const lines = body.split(/\r?\n/)
  const out: Record<string, string> = {}
  for (let i = 0; i < lines.length; i++) {
    const m = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(lines[i])
    if (!m) continue
    const key = m[1]
    let value = m[2].trim()
    if (value === '>' || value === '|' || value === '>-' || value === '|-') {
      const block: string[] = []
      while (i + 1 < lines.length && (/^\s+\S/.test(lines[i + 1]) || lines[i + 1].trim() === '')) {
        block.push(lines[++i].trim())
      }
      value = value.startsWith('>') ? block.filter(Boolean).join(' ') : block.join('\n').trim()
    } else if ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'"))) {
      value = value.length >= 2 ? value.slice(1, -1) : ''
      if (m[2].trim().startsWith('"')) value = value.replace(/\\"/g, '"').replace(/\\n/g, '\n')
    } else {
      // a trailing " # comment": cut at the first whitespace followed by '#'. Not /\s+#.*$/: that regex retries
      // from every position of a long whitespace run, quadratic — seconds of the main thread per run for a
      // SKILL.md line of 40,000 spaces, which the write tool can put in the workspace without an approval
      const hash = value.search(/\s#/)
      if (hash >= 0) value = value.slice(0, hash).trimEnd()
    }
    out[key] = value
  }
  return out
}
