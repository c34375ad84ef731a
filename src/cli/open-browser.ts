// Opens a URL with the platform's opener (xdg-open, open, start) and reports why it could not: an opener
// that is missing or exits non-zero (xdg-open with no browser to hand: exit 3) must not pass in silence.
import { spawn, type ChildProcess } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { plainLine } from './table'

/**
 * How long to wait for the opener's verdict. xdg-open runs a generic browser in the foreground and returns
 * only when it closes: still running by then means it opened something.
 */
export const OPENER_WAIT_MS = 3000

function openerFor(platform: NodeJS.Platform): [string, string[]] {
  if (platform === 'darwin') return ['open', []]
  if (platform === 'win32') return ['cmd', ['/c', 'start', '""']]
  return ['xdg-open', []]
}

/**
 * Resolves with undefined once the URL is open (or the opener still runs after OPENER_WAIT_MS), else with
 * the reason in one line, the URL in it replaced by "the link" (it carries the gateway token).
 */
export function openInBrowser(url: string, env: NodeJS.ProcessEnv, platform = process.platform): Promise<string | undefined> {
  const [cmd, pre] = openerFor(platform)
  // the opener's stderr goes to a file, not a pipe: a foreground browser that outlives this CLI would be
  // killed by SIGPIPE when it next writes to a pipe nobody reads
  const logDir = mkdtempSync(join(tmpdir(), 'loopdesk-open-'))
  const logFile = join(logDir, 'stderr')
  const fd = openSync(logFile, 'w+', 0o600)
  return new Promise((resolve) => {
    let done = false
    const timer = setTimeout(() => finish(), OPENER_WAIT_MS)
    let child: ChildProcess | undefined
    const finish = (reason?: string) => {
      if (done) return
      done = true
      clearTimeout(timer)
      child?.unref()
      closeSync(fd)
      try {
        rmSync(logDir, { recursive: true, force: true })
      } catch {
        // Windows: the still-running opener holds the file open; the temp folder keeps it
      }
      resolve(reason)
    }
    try {
      child = spawn(cmd, [...pre, url], { stdio: ['ignore', 'ignore', fd], detached: true, env })
    } catch (err) {
      return finish(`${cmd} could not start: ${err instanceof Error ? err.message : String(err)}`)
    }
    child.on('error', (err: NodeJS.ErrnoException) => finish(err.code === 'ENOENT' ? `${cmd} not found` : `${cmd} could not start (${err.code ?? err.message})`))
    child.on('exit', (code, signal) => {
      // after the wait the verdict is given and the file gone (a foreground browser closed later)
      if (done) return
      if (code === 0) return finish()
      const said = lastLine(readFileSync(logFile, 'utf8').replaceAll(url, 'the link'))
      finish(`${cmd} ${signal ? `was stopped by ${signal}` : `exited with code ${code}`}${said ? `: ${said}` : ''}`)
    })
  })
}

/** The opener's last words, as one plain line of bounded length. */
function lastLine(text: string): string {
  const line = text.split('\n').map((l) => plainLine(l).trim()).filter(Boolean).pop() ?? ''
  return line.length > 300 ? line.slice(0, 300) + '…' : line
}
