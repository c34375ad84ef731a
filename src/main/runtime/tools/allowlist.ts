// Exec allow-list matching. Entries are an exact command or a `prefix*` pattern ("git status*").
// A prefix match is refused when the remainder contains shell control syntax, so "git status*"
// cannot be stretched into "git status; rm -rf ~". A prefix that ends inside a word matches whole words
// only: "git status*" allows "git status --short" but not "git statusx" (another program or subcommand),
// "ls*" not "lsblk"; one ending in a separator ("npm run test:*", "./scripts/*") continues as written.
// A lone "*" is an explicit allow-everything entry.
const SHELL_CONTROL = /[;&|<>`$()\n\r\\]/
const WORD_END = /[\w.-]$/

export function matchesAllowlist(command: string, allowlist: readonly string[]): boolean {
  const cmd = command.trim()
  if (!cmd) return false
  for (const raw of allowlist) {
    const entry = raw.trim()
    if (!entry) continue
    if (entry === '*') return true
    if (entry.endsWith('*')) {
      const prefix = entry.slice(0, -1)
      if (!cmd.startsWith(prefix)) continue
      const rest = cmd.slice(prefix.length)
      if (rest && WORD_END.test(prefix) && !/^\s/.test(rest)) continue
      if (!SHELL_CONTROL.test(rest)) return true
    } else if (cmd === entry) {
      return true
    }
  }
  return false
}
