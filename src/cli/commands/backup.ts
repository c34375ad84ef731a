// `loopdesk backup [DIR]`: a copy of what Loopdesk keeps — config, sessions and transcripts (archived ones
// too), the Inspector's event logs, attachments, plugins and hooks — in a new folder, while the app or the
// gateway keeps running. It reads the state dir directly (no gateway needed). Each file is copied whole:
// session stores are replaced by rename, so a copy is the old or the new one; transcripts only grow, so a
// copy ends at a line boundary or at a torn last line, which every reader skips.
//
// Left out unless asked: API keys (credentials.json, --include-keys), the agent's workspace
// (--with-workspace: it can hold anything, e.g. a checkout with its dependencies); always left out: the
// gateway's token and paired devices, the CLI's device keys, and lock files — secrets of this machine's
// installation, not the user's data.
import fs from 'node:fs'
import path from 'node:path'
import { parseArgs, str, TARGET_FLAGS, UsageError } from '../args'
import { CliError, EXIT, type CliIO } from '../io'
import { resolveStateDir } from '../resolve'
import { sizeText } from '../table'

export const BACKUP_HELP = `loopdesk backup [DIR] [--include-keys] [--with-workspace] [--state-dir D]
  Copies config, sessions and transcripts (archived ones too), attachments, plugins and hooks into DIR
  (default ./loopdesk-backup-<date>-<time>; it must be new or empty), while Loopdesk keeps running.
  API keys are left out unless --include-keys (the copy is then as secret as they are); the agent's
  workspace unless --with-workspace; the gateway token, paired devices and device keys always.
  To restore: stop Loopdesk and copy the folder's contents into the state dir.`

const FLAGS = { 'include-keys': { type: 'boolean' }, 'with-workspace': { type: 'boolean' }, 'state-dir': TARGET_FLAGS['state-dir'], help: TARGET_FLAGS.help } as const

/** top-level entries never copied: this installation's secrets and machine state */
const ALWAYS_OUT = new Set(['gateway', 'identity'])

export interface BackupSummary {
  dir: string
  files: number
  bytes: number
  left: string[]
}

/** Copies the state dir into `dir` (see the file comment for what goes in). */
export function backupStateDir(stateDir: string, dir: string, opts: { includeKeys?: boolean; withWorkspace?: boolean } = {}): BackupSummary {
  const src = path.resolve(stateDir)
  const dst = path.resolve(dir)
  if (!fs.existsSync(src)) throw new CliError(`no state dir at ${src}`, EXIT.failed)
  if (dst === src || dst.startsWith(src + path.sep)) throw new CliError(`the backup cannot go inside the state dir (${src}): choose a folder elsewhere`, EXIT.usage)
  if (fs.existsSync(dst) && fs.readdirSync(dst).length > 0) throw new CliError(`${dst} is not empty: choose a new folder`, EXIT.usage)
  const left = ['gateway token and paired devices', 'device keys']
  if (!opts.includeKeys) left.push('API keys (--include-keys)')
  if (!opts.withWorkspace) left.push('workspace (--with-workspace)')
  const summary: BackupSummary = { dir: dst, files: 0, bytes: 0, left }
  fs.mkdirSync(dst, { recursive: true, mode: 0o700 })
  const skipTop = (name: string) =>
    ALWAYS_OUT.has(name) || (name === 'credentials.json' && !opts.includeKeys) || (name === 'workspace' && !opts.withWorkspace)
  const walk = (from: string, to: string, top: boolean) => {
    for (const e of fs.readdirSync(from, { withFileTypes: true })) {
      if (top && skipTop(e.name)) continue
      // locks and half-written temp files (atomic writes rename theirs into place) are not data
      if (e.name.endsWith('.lock') || e.name.endsWith('.tmp')) continue
      const a = path.join(from, e.name)
      const b = path.join(to, e.name)
      if (e.isDirectory()) {
        fs.mkdirSync(b, { mode: 0o700 })
        walk(a, b, false)
      } else if (e.isFile()) {
        try {
          fs.copyFileSync(a, b, fs.constants.COPYFILE_EXCL)
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue // removed meanwhile (a pruned attachment)
          throw err
        }
        // as private as the original (transcripts, keys and attachments are 0600)
        fs.chmodSync(b, fs.statSync(a).mode & 0o777)
        summary.files++
        summary.bytes += fs.statSync(b).size
      }
      // symlinks are not followed: a link could point anywhere on the machine
    }
  }
  walk(src, dst, true)
  fs.writeFileSync(
    path.join(dst, 'loopdesk-backup.json'),
    JSON.stringify({ version: 1, createdAt: new Date().toISOString(), stateDir: src, files: summary.files, bytes: summary.bytes, leftOut: left }, null, 2) + '\n',
    { mode: 0o600 },
  )
  return summary
}

const stamp = (d: Date) => d.toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-')

export async function backupCommand(argv: string[], io: CliIO): Promise<number> {
  const { flags, positionals } = parseArgs(argv, FLAGS)
  if (flags.help) {
    io.stdout(BACKUP_HELP + '\n')
    return EXIT.ok
  }
  if (positionals.length > 1) throw new UsageError(`unexpected argument: ${positionals[1]}`)
  const stateDir = resolveStateDir(str(flags['state-dir']), io.env)
  const dir = positionals[0] ?? `loopdesk-backup-${stamp(new Date())}`
  const s = backupStateDir(stateDir, dir, { includeKeys: !!flags['include-keys'], withWorkspace: !!flags['with-workspace'] })
  io.stdout(`backed up ${s.files} file${s.files === 1 ? '' : 's'} (${sizeText(s.bytes)}) to ${s.dir}\nleft out: ${s.left.join(', ')}\n`)
  if (flags['include-keys']) io.stderr('loopdesk: the backup holds your API keys: keep it as private as they are\n')
  return EXIT.ok
}
