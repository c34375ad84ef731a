// The state dir holds transcripts, tool output, the Inspector's events and (headless) keys. Its files are
// 0600, but folders made with the default umask (0755) still let other local users list session ids and
// names. A state dir Loopdesk creates is 0700 from the start; one that exists is the user's and left as is.
import fs from 'node:fs'

/** Creates `stateDir` (and missing parents) owner-only when it does not exist yet. */
export function ensurePrivateStateDir(stateDir: string): void {
  if (fs.existsSync(stateDir)) return
  fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 })
  fs.chmodSync(stateDir, 0o700) // the umask may have narrowed it; never widened, but be exact
}
