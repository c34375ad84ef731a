// `loopdesk restore DIR`: puts a `loopdesk backup` folder back into the state dir. Nothing is deleted: the
// data the backup replaces is moved to a folder next to the state dir, and a restore that fails half-way
// moves everything back. Order, so that a failure leaves the state dir as it was:
//   1. check the backup (its manifest, every file it lists, its JSON files) and that nothing uses the
//      state dir (the app or a gateway, a runtime's accepted-message journal, a held write lock);
//   2. copy the backup into a staging folder next to the state dir (the slow part; the state dir untouched);
//   3. rename the state dir's current data aside, then the staged entries in (renames: quick, same disk).
// This installation's own secrets (gateway token, paired devices, device keys) are never replaced; API keys
// and the workspace only when the backup holds them.
import fs from 'node:fs'
import path from 'node:path'
import { gatewayProcessAlive, readGatewayInfo } from '../../main/gateway/state-files'
import { sessionDirs } from '../../main/runtime/media/reference-scan'
import { journalOwnerAlive, journalOwnerPid } from '../../main/runtime/runner/accepted-journal'
import { embeddedRuntimeName, liveEmbeddedRuntime } from '../../main/gateway/embedded-runtimes'
import { isPidAlive } from '../../main/runtime/sessions/process-info'
import { parseArgs, str, TARGET_FLAGS, UsageError } from '../args'
import { CliError, EXIT, type CliIO } from '../io'
import { resolveStateDir } from '../resolve'
import { parseConfigText } from '../../main/runtime/config/parse'
import { readRegularFileTextSync } from '../../main/runtime/open-regular-file'
import { readSmallRegularFile } from '../../main/runtime/read-small-file'
import { restoreConfigSecrets } from '../config-secrets'
import { isInside } from '../../main/runtime/tools/paths'
import { copyTree, isTransient, listTree, realPlace } from '../state-copy'
import { sizeText } from '../table'
import { ALWAYS_OUT, MANIFEST, stamp, type BackupManifest } from './backup'

export const RESTORE_HELP = `loopdesk restore DIR [--yes] [--state-dir D]
  Puts a backup made by \`loopdesk backup\` back into the state dir: its config, sessions, transcripts,
  attachments, plugins and hooks (and its API keys and workspace when it holds them). Quit the app and stop
  the gateway first. Without --yes it only says what it would do. Nothing is deleted: the data it replaces
  is moved to <state dir>-before-restore-<date>-<time>. The gateway token, paired devices and device keys
  stay as they are.`

/** far above a manifest (a few counts and names) and a lock file (a pid and a time) */
const MAX_MANIFEST_BYTES = 1024 * 1024
const MAX_LOCK_BYTES = 64 * 1024

const FLAGS = { yes: { type: 'boolean' }, 'state-dir': TARGET_FLAGS['state-dir'], help: TARGET_FLAGS.help } as const

/** files a backup holds that must parse as JSON (a damaged one is refused before anything moves) */
const JSON_FILE = /(^|\/)(loopdesk\.json|prefs\.json|credentials\.json|sessions\.json)$/

export interface RestorePlan {
  backup: string
  stateDir: string
  manifest: BackupManifest
  files: number
  bytes: number
  /** top-level entries of the state dir that move aside */
  replaced: string[]
  /** where they go */
  aside: string
  /** where the backup is copied first (next to the state dir, so the final moves are renames) */
  staging: string
  /** what stays as it is, in words */
  kept: string[]
}

/** Fails with one clear line unless `dir` holds a whole backup. */
function checkBackup(dir: string): { manifest: BackupManifest; top: string[] } {
  const file = path.join(dir, MANIFEST)
  let manifest: BackupManifest
  try {
    manifest = JSON.parse(readSmallRegularFile(file, MAX_MANIFEST_BYTES)) as BackupManifest
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (!fs.existsSync(dir)) throw new CliError(`${dir} does not exist`, EXIT.failed)
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new CliError(`${dir} is not a Loopdesk backup (it has no ${MANIFEST})`, EXIT.failed)
    throw new CliError(`${file} cannot be read: ${(err as Error).message}`, EXIT.failed)
  }
  if (manifest?.version !== 1) throw new CliError(`${file}: unknown backup version ${JSON.stringify(manifest?.version)} (this Loopdesk reads version 1)`, EXIT.failed)
  const skip = (name: string) => name === MANIFEST || ALWAYS_OUT.has(name)
  const held = listTree(dir, skip)
  if (held.odd.length) throw new CliError(`the backup holds ${held.odd[0]}, which is not a regular file (a backup never does): not restored`, EXIT.failed)
  // a backup never holds gateway/ or identity/, so what is listed here is what the manifest counted
  if (held.files !== manifest.files || held.bytes !== manifest.bytes) {
    throw new CliError(
      `the backup is incomplete or was changed: it holds ${held.files} files (${sizeText(held.bytes)}), its manifest lists ${manifest.files} (${sizeText(manifest.bytes)}): not restored`,
      EXIT.failed,
    )
  }
  for (const rel of held.paths.filter((p) => JSON_FILE.test(p) && !p.startsWith('workspace/'))) {
    const text = readRegularFileTextSync(path.join(dir, rel)) // listed as regular; swapped since, not waited on
    // loopdesk.json is JSON5 (comments, trailing commas); the others are written as JSON
    let problem: string | undefined
    if (rel === 'loopdesk.json') {
      const parsed = parseConfigText(text)
      if (!parsed.ok) problem = parsed.issue.message
    } else {
      try {
        JSON.parse(text)
      } catch (err) {
        problem = (err as Error).message
      }
    }
    if (problem) throw new CliError(`the backup's ${rel} is damaged (${problem}): not restored`, EXIT.failed)
  }
  const top = fs.readdirSync(dir).filter((n) => !skip(n) && !isTransient(n))
  return { manifest, top }
}

/** Who uses the state dir now, in words (empty when nobody does). */
export async function stateDirUsers(stateDir: string): Promise<string[]> {
  const users: string[] = []
  const alive = (pid: number) => pid !== process.pid && isPidAlive(pid)
  const gw = readGatewayInfo(stateDir)
  // (its recorded start time too: a pid the OS gave to another process since is no gateway)
  if (gw && gw.pid !== process.pid && gatewayProcessAlive(gw)) users.push(`a gateway (pid ${gw.pid}) serves it at ${gw.url}`)
  // a runtime without a gateway (agent --local, the app before its gateway is up) records itself under gateway/
  const embedded = liveEmbeddedRuntime(stateDir)
  if (embedded) users.push(`${embeddedRuntimeName(embedded)} uses it`)
  // session dirs hold the journals and most locks; the state dir itself the config's
  for (const dir of [stateDir, ...(await sessionDirs(stateDir))]) {
    for (const name of fs.readdirSync(dir)) {
      const journalPid = journalOwnerPid(name)
      // pid and recorded start time: a journal whose pid now belongs to another process is no user
      if (journalPid !== undefined && journalPid !== process.pid && journalOwnerAlive(path.join(dir, name))) {
        users.push(`a Loopdesk runtime (pid ${journalPid}) has sessions open in ${dir}`)
      }
      if (!name.endsWith('.lock')) continue
      try {
        // non-blocking: a FIFO named *.lock would hang the restore
        const holder = (JSON.parse(readSmallRegularFile(path.join(dir, name), MAX_LOCK_BYTES)) as { pid?: unknown }).pid
        if (typeof holder === 'number' && alive(holder)) users.push(`pid ${holder} is writing ${path.join(dir, name.slice(0, -'.lock'.length))}`)
      } catch {
        // released meanwhile, or not a lock of ours
      }
    }
  }
  return [...new Set(users)]
}

/** Checks the backup and the state dir and says what a restore would do (nothing is changed). */
export async function planRestore(backupDir: string, stateDir: string, now = new Date()): Promise<RestorePlan> {
  const backup = path.resolve(backupDir)
  const state = path.resolve(stateDir)
  const [realBackup, realState] = [realPlace(backup), realPlace(state)]
  if (isInside(realState, realBackup) || isInside(realBackup, realState)) throw new CliError(`the backup ${backup} and the state dir ${state} overlap: keep backups elsewhere`, EXIT.usage)
  const { manifest, top } = checkBackup(backup)
  if (fs.existsSync(state) && !fs.statSync(state).isDirectory()) throw new CliError(`the state dir ${state} is a file, not a folder: check --state-dir / LOOPDESK_STATE_DIR`, EXIT.usage)
  const users = fs.existsSync(state) ? await stateDirUsers(state) : []
  if (users.length) throw new CliError(`Loopdesk is using ${state}: ${users.join('; ')} — quit the app and stop the gateway, then restore again`, EXIT.failed)
  const kept = ['gateway token and paired devices', 'device keys']
  const keep = new Set(ALWAYS_OUT)
  if (!top.includes('credentials.json')) {
    keep.add('credentials.json')
    kept.push('API keys (the backup has none)')
  }
  if (!top.includes('workspace')) {
    keep.add('workspace')
    kept.push('workspace (the backup has none)')
  }
  const replaced = fs.existsSync(state) ? fs.readdirSync(state).filter((n) => !keep.has(n)).sort() : []
  const free = (kind: string) => {
    let p = `${state}-${kind}-${stamp(now)}`
    for (let i = 2; fs.existsSync(p); i++) p = `${state}-${kind}-${stamp(now)}-${i}`
    return p
  }
  return { backup, stateDir: state, manifest, files: manifest.files, bytes: manifest.bytes, replaced, aside: free('before-restore'), staging: free('restoring'), kept }
}

export interface RestoreFs {
  rename(from: string, to: string): void
}

/**
 * Carries out a plan (see the file comment for the order). Throws a CliError when it fails; the state dir is
 * then as it was (or, if even moving back failed, the error says where the previous data is).
 */
export function applyRestore(plan: RestorePlan, fsOps: RestoreFs = { rename: fs.renameSync }): { droppedSecrets: string[] } {
  const { backup, stateDir, aside, staging } = plan
  let droppedSecrets: string[] = []
  try {
    fs.mkdirSync(staging, { mode: 0o700 })
    copyTree(backup, staging, (name) => name === MANIFEST || ALWAYS_OUT.has(name))
    // this installation's gateway token, and its API keys where the backup has placeholders
    const cfg = path.join(staging, 'loopdesk.json')
    if (fs.existsSync(cfg)) droppedSecrets = restoreConfigSecrets(cfg, path.join(stateDir, 'loopdesk.json'))
  } catch (err) {
    fs.rmSync(staging, { recursive: true, force: true })
    throw new CliError(`could not copy the backup (${(err as Error).message}); nothing was changed`, EXIT.failed)
  }
  const staged = fs.readdirSync(staging)
  const moved: string[] = []
  const placed: string[] = []
  try {
    fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 })
    if (plan.replaced.length) fs.mkdirSync(aside, { mode: 0o700 })
    for (const name of plan.replaced) {
      fsOps.rename(path.join(stateDir, name), path.join(aside, name))
      moved.push(name)
    }
    for (const name of staged) {
      fsOps.rename(path.join(staging, name), path.join(stateDir, name))
      placed.push(name)
    }
  } catch (err) {
    const why = (err as Error).message
    const stuck: string[] = []
    for (const name of placed.reverse()) {
      try {
        fsOps.rename(path.join(stateDir, name), path.join(staging, name))
      } catch {
        stuck.push(name)
      }
    }
    for (const name of moved.reverse()) {
      try {
        fsOps.rename(path.join(aside, name), path.join(stateDir, name))
      } catch {
        stuck.push(name)
      }
    }
    if (stuck.length) throw new CliError(`restore failed (${why}) and could not be undone completely: the previous data is in ${aside}, the backup's in ${staging}`, EXIT.failed)
    fs.rmSync(staging, { recursive: true, force: true })
    fs.rmSync(aside, { recursive: true, force: true })
    throw new CliError(`restore failed (${why}); the state dir is as it was`, EXIT.failed)
  }
  fs.rmSync(staging, { recursive: true, force: true })
  return { droppedSecrets }
}

export async function restoreCommand(argv: string[], io: CliIO): Promise<number> {
  const { flags, positionals } = parseArgs(argv, FLAGS)
  if (flags.help) {
    io.stdout(RESTORE_HELP + '\n')
    return EXIT.ok
  }
  if (positionals.length === 0) throw new UsageError('restore needs the backup folder: loopdesk restore DIR')
  if (positionals.length > 1) throw new UsageError(`unexpected argument: ${positionals[1]}`)
  const plan = await planRestore(positionals[0], resolveStateDir(str(flags['state-dir']), io.env))
  const what = `${plan.files} file${plan.files === 1 ? '' : 's'} (${sizeText(plan.bytes)}) from ${plan.backup} (backed up ${plan.manifest.createdAt})`
  const aside = plan.replaced.length ? `${plan.replaced.length} item${plan.replaced.length === 1 ? '' : 's'} (${plan.replaced.join(', ')})` : ''
  if (!flags.yes) {
    io.stdout(
      `would restore ${what} into ${plan.stateDir}\n` +
        (aside ? `the current data, ${aside}, would be moved to ${plan.aside}\n` : 'the state dir holds no data to move aside\n') +
        `kept as they are: ${plan.kept.join(', ')}\n` +
        'nothing changed — run again with --yes to restore\n',
    )
    return EXIT.ok
  }
  const { droppedSecrets } = applyRestore(plan)
  io.stdout(
    `restored ${what} into ${plan.stateDir}\n` +
      (aside ? `the data it replaced, ${aside}, is in ${plan.aside} (delete it once the restore looks right)\n` : '') +
      `kept as they were: ${plan.kept.join(', ')}\n`,
  )
  if (droppedSecrets.length) {
    io.stderr(`loopdesk: the backup left out ${droppedSecrets.join(', ')} and this installation has none to keep: set ${droppedSecrets.length === 1 ? 'it' : 'them'} again (loopdesk config set … --stdin)\n`)
  }
  return EXIT.ok
}
