// `loopdesk sessions prune`: the archived transcripts /new, /reset and deleting a session leave behind
// (`<sessionId>.jsonl.<reason>.<time>`). A running Loopdesk removes those past `session.archiveRetentionDays`
// on its own (sessions/archive-prune.ts); this is the on-request pass: it lists those older than N days and,
// with --yes, deletes them — never a live transcript, a session store or anything else. It works on the
// state dir directly (no gateway); attachments only they named go with the next media cleanup.
import fs from 'node:fs'
import { listArchivedTranscripts, type ArchivedTranscript } from '../../main/runtime/sessions/archive-prune'
import { intFlag, type ParsedArgs, str, UsageError } from '../args'
import { CliError, EXIT, type CliIO } from '../io'
import { stateDirFolder, resolveStateDir } from '../resolve'
import { sizeText } from '../table'

const DAY_MS = 86_400_000
const DEFAULT_DAYS = 30

/** Archived transcripts under `<stateDir>/agents/<id>/sessions/` archived before `before` (ms), by the name's time. */
export async function archivedTranscripts(stateDir: string, before: number): Promise<ArchivedTranscript[]> {
  return (await listArchivedTranscripts(stateDir)).filter((a) => a.archivedAt < before)
}

export async function pruneArchives(args: string[], flags: ParsedArgs['flags'], io: CliIO): Promise<number> {
  if (args.length) throw new UsageError(`unexpected argument: ${args[0]}`)
  const days = intFlag(flags['older-than'], 'older-than', 0, 36_500) ?? DEFAULT_DAYS
  const stateDir = stateDirFolder(resolveStateDir(str(flags['state-dir']), io.env))
  if (!fs.existsSync(stateDir)) throw new CliError(`no state dir at ${stateDir}`, EXIT.failed)
  const found = await archivedTranscripts(stateDir, Date.now() - days * DAY_MS)
  const bytes = found.reduce((n, f) => n + f.bytes, 0)
  const what = `${found.length} archived transcript${found.length === 1 ? '' : 's'} older than ${days} day${days === 1 ? '' : 's'} (${sizeText(bytes)})`
  if (!found.length) {
    io.stdout(`no archived transcripts older than ${days} day${days === 1 ? '' : 's'}\n`)
    return EXIT.ok
  }
  if (!flags.yes) {
    io.stdout(`${what}; nothing deleted — run again with --yes to delete them\n`)
    return EXIT.ok
  }
  let deleted = 0
  for (const f of found) {
    try {
      fs.unlinkSync(f.file)
      deleted++
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') io.stderr(`loopdesk: could not delete ${f.file}: ${(err as Error).message}\n`)
    }
  }
  io.stdout(`deleted ${deleted} of ${what}\n`)
  return deleted === found.length ? EXIT.ok : EXIT.failed
}
