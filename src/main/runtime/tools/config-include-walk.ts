// The one bounded walk over user config files and the files they include (git's `[include] path`, hg's `%include`):
// git's own include depth (10), 32 files and 256 KiB each, so a config that includes itself, or a huge or endless
// chain, costs a fence check little. A file that cannot be read (absent, unreadable, a folder, too large)
// contributes nothing, as git and hg skip it. Each format's parser says what a file names.
import { readSmallRegularFile } from '../read-small-file'

const MAX_DEPTH = 10
const MAX_FILES = 32
const MAX_BYTES = 256 * 1024

/**
 * Reads `roots` in order and hands each file's text to `each`, whose `follow(target)` walks an included file at
 * once (depth first, as the tools read them), within the bounds above.
 */
export function walkConfigIncludes(
  roots: readonly string[],
  each: (file: string, text: string, follow: (target: string) => void) => void,
): void {
  const seen = new Set<string>()
  const visit = (file: string, depth: number) => {
    if (seen.has(file) || seen.size >= MAX_FILES) return
    seen.add(file)
    let text: string
    try {
      text = readSmallRegularFile(file, MAX_BYTES)
    } catch {
      return
    }
    each(file, text, (target) => {
      if (depth < MAX_DEPTH) visit(target, depth + 1)
    })
  }
  for (const r of roots) visit(r, 1)
}
