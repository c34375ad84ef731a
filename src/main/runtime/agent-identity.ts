// agent.identity.get: who an agent presents as. Loopdesk's config has no agent names, so the name and
// emoji come from the workspace's IDENTITY.md (the bootstrap file the prompt already injects), else the id.
import fs from 'node:fs'
import path from 'node:path'
import type { AgentIdentity } from '../../shared/methods'

/** Longest IDENTITY.md we read (it is a short profile; a huge file is not worth parsing). */
const MAX_IDENTITY_BYTES = 64 * 1024

/**
 * Reads `Name:` / `Emoji:` lines (any list marker or bold markup around the label) from IDENTITY.md.
 * Template placeholders such as `(pick something you like)` or `_..._` count as unset.
 */
export function parseIdentityMarkdown(text: string): { name?: string; emoji?: string } {
  const out: { name?: string; emoji?: string } = {}
  for (const raw of text.split(/\r?\n/)) {
    const m = /^\s*(?:[-*+]\s*)?(?:\*\*|__)?\s*(name|emoji)\s*:?\s*(?:\*\*|__)?\s*:?\s*(.*)$/i.exec(raw)
    if (!m) continue
    const value = m[2].trim().replace(/^\*+|\*+$/g, '').trim()
    if (!value || /^\(.*\)$/.test(value) || /^_.*_$/.test(value)) continue
    const field = m[1].toLowerCase() as 'name' | 'emoji'
    if (out[field] === undefined) out[field] = value.slice(0, 200)
  }
  return out
}

export function agentIdentity(agentId: string, workspace: string | undefined): AgentIdentity {
  let parsed: { name?: string; emoji?: string } = {}
  if (workspace) {
    try {
      const file = path.join(workspace, 'IDENTITY.md')
      const st = fs.statSync(file)
      if (st.isFile() && st.size <= MAX_IDENTITY_BYTES) parsed = parseIdentityMarkdown(fs.readFileSync(file, 'utf8'))
    } catch {
      // no IDENTITY.md: the default identity
    }
  }
  return {
    agentId,
    ...(parsed.name ? { name: parsed.name, nameSource: 'workspace' as const } : { name: agentId, nameSource: 'default' as const }),
    ...(parsed.emoji ? { emoji: parsed.emoji } : {}),
  }
}
