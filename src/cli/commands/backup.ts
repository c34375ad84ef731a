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
import { stateDirFolder, resolveStateDir } from '../resolve'
import { sizeText } from '../table'
import { stripConfigSecrets } from '../config-secrets'
import { isInside } from '../../main/runtime/tools/paths'
import { copyTree, realPlace } from '../state-copy'

export const BACKUP_HELP = `loopdesk backup [DIR] [--include-keys] [--with-workspace] [--state-dir D]
  Copies config, sessions and transcripts (archived ones too), attachments, plugins and hooks into DIR
  (default ./loopdesk-backup-<date>-<time>; it must be new or empty), while Loopdesk keeps running.
  API keys are left out unless --include-keys (the copy is then as secret as they are); the agent's
  workspace unless --with-workspace; the gateway token, paired devices and device keys always.
  To put it back: loopdesk restore DIR.`

const FLAGS = { 'include-keys': { type: 'boolean' }, 'with-workspace': { type: 'boolean' }, 'state-dir': TARGET_FLAGS['state-dir'], help: TARGET_FLAGS.help } as const

/** top-level entries never copied (nor restored): this installation's secrets and machine state */
export const ALWAYS_OUT = new Set(['gateway', 'identity'])

/** the manifest a backup folder holds */
export const MANIFEST = 'loopdesk-backup.json'

export interface BackupManifest {
  version: 1
  createdAt: string
  stateDir: string
  files: number
  bytes: number
  leftOut: string[]
  /** secrets in loopdesk.json replaced by the placeholder (config-secrets.ts) */
  redacted?: string[]
}

export interface BackupSummary {
  dir: string
  files: number
  bytes: number
  left: string[]
  warnings: string[]
}

/**
 * Creates `dir` and its missing parents one level at a time. Not `mkdirSync(…, {recursive})`: on Node 20 that
 * spins forever under a pseudo filesystem (`/proc/x`); one level at a time fails at once there. Errors are
 * said as what the user can fix.
 */
function makeBackupDir(dir: string): void {
  const missing: string[] = []
  for (let p = dir; !fs.existsSync(p); p = path.dirname(p)) {
    missing.unshift(p)
    if (path.dirname(p) === p) break
  }
  for (const p of missing) {
    try {
      fs.mkdirSync(p, { mode: 0o700 })
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      const why =
        code === 'ENOTDIR'
          ? 'a part of that path is a file'
          : code === 'EACCES' || code === 'EPERM'
            ? 'permission denied'
            : code === 'EROFS'
              ? 'the filesystem is read-only'
              : code === 'ENOENT'
                ? 'folders cannot be created there'
                : ((err as Error).message ?? String(err))
      throw new CliError(`cannot create the backup folder ${dir}: ${why}`, EXIT.failed)
    }
  }
}

/** Copies the state dir into `dir` (see the file comment for what goes in). */
export function backupStateDir(stateDir: string, dir: string, opts: { includeKeys?: boolean; withWorkspace?: boolean } = {}): BackupSummary {
  const src = path.resolve(stateDir)
  const dst = path.resolve(dir)
  if (!fs.existsSync(src)) throw new CliError(`no state dir at ${src}`, EXIT.failed)
  // real places: a link pointing into the state dir would otherwise copy the state dir into itself
  if (isInside(realPlace(src), realPlace(dst))) throw new CliError(`the backup cannot go inside the state dir (${src}): choose a folder elsewhere`, EXIT.usage)
  if (fs.existsSync(dst) && !fs.statSync(dst).isDirectory()) throw new CliError(`${dst} is a file: choose a new folder`, EXIT.usage)
  if (fs.existsSync(dst) && fs.readdirSync(dst).length > 0) throw new CliError(`${dst} is not empty: choose a new folder`, EXIT.usage)
  const left = ['gateway token and paired devices', 'device keys']
  if (!opts.includeKeys) left.push('API keys (--include-keys)')
  if (!opts.withWorkspace) left.push('workspace (--with-workspace)')
  const summary: BackupSummary = { dir: dst, files: 0, bytes: 0, left, warnings: [] }
  makeBackupDir(dst)
  const skipTop = (name: string) =>
    ALWAYS_OUT.has(name) || (name === 'credentials.json' && !opts.includeKeys) || (name === 'workspace' && !opts.withWorkspace)
  Object.assign(summary, copyTree(src, dst, skipTop))
  // secrets written into loopdesk.json itself: the gateway token always out, API keys unless asked for
  const cfg = path.join(dst, 'loopdesk.json')
  const size = () => fs.statSync(cfg, { throwIfNoEntry: false })?.size ?? 0
  const before = size()
  const redacted = stripConfigSecrets(cfg, { keepApiKeys: !!opts.includeKeys })
  summary.bytes += size() - before
  if (redacted === undefined) summary.warnings.push('loopdesk.json is not a readable config, so it was copied as it is: it may hold API keys or the gateway token')
  const manifest: BackupManifest = {
    version: 1,
    createdAt: new Date().toISOString(),
    stateDir: src,
    files: summary.files,
    bytes: summary.bytes,
    leftOut: left,
    ...(redacted?.length ? { redacted } : {}),
  }
  fs.writeFileSync(path.join(dst, MANIFEST), JSON.stringify(manifest, null, 2) + '\n', { mode: 0o600 })
  return summary
}

/** a local-sortable UTC stamp for folder names: 20261123-211500 */
export const stamp = (d: Date) => d.toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-')

export async function backupCommand(argv: string[], io: CliIO): Promise<number> {
  const { flags, positionals } = parseArgs(argv, FLAGS)
  if (flags.help) {
    io.stdout(BACKUP_HELP + '\n')
    return EXIT.ok
  }
  if (positionals.length > 1) throw new UsageError(`unexpected argument: ${positionals[1]}`)
  const stateDir = stateDirFolder(resolveStateDir(str(flags['state-dir']), io.env))
  const dir = positionals[0] ?? `loopdesk-backup-${stamp(new Date())}`
  const s = backupStateDir(stateDir, dir, { includeKeys: !!flags['include-keys'], withWorkspace: !!flags['with-workspace'] })
  io.stdout(`backed up ${s.files} file${s.files === 1 ? '' : 's'} (${sizeText(s.bytes)}) to ${s.dir}\nleft out: ${s.left.join(', ')}\n`)
  for (const w of s.warnings) io.stderr(`loopdesk: ${w}\n`)
  if (flags['include-keys']) io.stderr('loopdesk: the backup holds your API keys: keep it as private as they are\n')
  return EXIT.ok
}
