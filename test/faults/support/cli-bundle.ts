// The headless gateway the suite kills and restarts is the real CLI (src/cli/main.ts → `loopdesk gateway
// run`), run from the bundle bin/loopdesk.mjs uses (bin/cli-bundle.mjs, built once by the global setup):
// it starts in well under a second instead of ~6 s of per-file tsx transforms on a loaded 2-core machine,
// which is what makes 20+ kill/restart cycles affordable. The entry is run directly, not through
// bin/loopdesk.mjs: `gateway run` there may relaunch itself (src/cli/v8-pool.ts), and the suite must kill
// the process that serves. LOOPDESK_FAULTS_TSX=1 runs the sources through tsx instead.
import fs from 'node:fs'
import path from 'node:path'
import { bundleEntry, cachedBundle, ROOT } from '../../../bin/cli-bundle.mjs'

export { ROOT }

export function buildCliBundle(): Promise<string> {
  return cachedBundle()
}

/** argv (after `node`) that runs the loopdesk CLI with `args`. */
export function cliArgv(args: string[]): string[] {
  const entry = bundleEntry()
  if (process.env.LOOPDESK_FAULTS_TSX === '1' || !fs.existsSync(entry)) return ['--import', 'tsx', path.join(ROOT, 'src', 'cli', 'main.ts'), ...args]
  return [entry, ...args]
}
