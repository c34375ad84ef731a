// Exec allow-list matching. Entries are an exact command or a `prefix*` pattern ("git status*").
// A prefix match is refused when the remainder contains shell control syntax, so "git status*"
// cannot be stretched into "git status; rm -rf ~". A lone "*" is an explicit allow-everything entry.
const SHELL_CONTROL = /[;&|<>`$()\n\r\\]/

export function matchesAllowlist(command: string, allowlist: readonly string[]): boolean {
  const cmd = command.trim()
  if (!cmd) return false
  for (const raw of allowlist) {
    const entry = raw.trim()
    if (!entry) continue
    if (entry === '*') return true
    if (entry.endsWith('*')) {
      const prefix = entry.slice(0, -1)
      if (cmd.startsWith(prefix) && !SHELL_CONTROL.test(cmd.slice(prefix.length))) return true
    } else if (cmd === entry) {
      return true
    }
  }
  return false
}
