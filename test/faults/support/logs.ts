// Collects everything the gateway children print, per process, and scans it (plus state-dir files) for
// secrets: the gateway token, provider API keys and device private keys must never show up there.
import type { ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

/** Files that legitimately hold a secret (relative to the state dir). */
const SECRET_HOLDERS = new Set(['loopdesk.json', 'credentials.json', path.join('gateway', 'token'), path.join('identity', 'device.json')])

export class LogSink {
  private readonly byLabel = new Map<string, string[]>()

  attach(child: ChildProcess, label: string): void {
    const chunks: string[] = []
    this.byLabel.set(label, chunks)
    child.stdout?.on('data', (d: Buffer) => chunks.push(d.toString('utf8')))
    child.stderr?.on('data', (d: Buffer) => chunks.push(d.toString('utf8')))
  }

  add(label: string, text: string): void {
    const chunks = this.byLabel.get(label) ?? []
    chunks.push(text)
    this.byLabel.set(label, chunks)
  }

  of(label: string): string {
    return (this.byLabel.get(label) ?? []).join('')
  }

  text(): string {
    return [...this.byLabel.entries()].map(([l, c]) => `--- ${l}\n${c.join('')}`).join('\n')
  }

  get bytes(): number {
    let n = 0
    for (const c of this.byLabel.values()) for (const s of c) n += s.length
    return n
  }
}

export interface SecretFinding {
  where: string
  secret: string
}

/** Every file under `dir` except the ones meant to hold secrets. */
function scannableFiles(dir: string): string[] {
  const out: string[] = []
  const walk = (d: string) => {
    let names: fs.Dirent[]
    try {
      names = fs.readdirSync(d, { withFileTypes: true })
    } catch {
      return
    }
    for (const n of names) {
      const p = path.join(d, n.name)
      if (n.isDirectory()) walk(p)
      else if (n.isFile() && !SECRET_HOLDERS.has(path.relative(dir, p))) out.push(p)
    }
  }
  walk(dir)
  return out
}

/**
 * Looks for each secret (and, for long ones, a 12-char slice of it, so a truncated echo is caught too) in
 * the captured output, extra texts (error messages seen by clients) and the state dirs' files.
 */
export function findSecrets(secrets: string[], sources: { logs?: LogSink; texts?: Array<[string, string]>; stateDirs?: string[] }): SecretFinding[] {
  const needles = secrets.filter((s) => s.length >= 8).flatMap((s) => (s.length >= 24 ? [s, s.slice(4, 16)] : [s]))
  const findings: SecretFinding[] = []
  const scan = (where: string, text: string) => {
    for (const n of needles) if (text.includes(n)) findings.push({ where, secret: `${n.slice(0, 4)}…` })
  }
  if (sources.logs) scan('gateway output', sources.logs.text())
  for (const [where, text] of sources.texts ?? []) scan(where, text)
  for (const dir of sources.stateDirs ?? []) {
    for (const f of scannableFiles(dir)) {
      let text: string
      try {
        text = fs.readFileSync(f, 'latin1')
      } catch {
        continue // a temp file renamed meanwhile
      }
      scan(f, text)
    }
  }
  return findings
}
