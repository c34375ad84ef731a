// The runtime's accepted-message journals (`accepted.<pid>-<hex>.jsonl`) in backup and restore: a running
// runtime's is its working file and stays out (a copy named after a live pid made the restored state dir
// look in use: "Loopdesk is using …"); a dead runtime's holds messages it acknowledged and never answered,
// which the next start puts into their sessions, and is copied like any data.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCliCaptured } from '../../test/fixtures/cli-io'
import { tempDir } from '../../test/fixtures/temp-dir'
import { processStartTime } from '../main/runtime/sessions/process-info'

const SESSIONS = 'agents/main/sessions'
const live = process.ppid // the test runner: alive as long as this test
const liveStart = processStartTime(live)
const deadPid = spawnSync(process.execPath, ['-e', '']).pid! // exited already

const journal = (pid: number, starttime: string | undefined, open: boolean) =>
  [
    JSON.stringify({ op: 'owner', pid, ...(starttime ? { starttime } : {}) }),
    ...(open ? [JSON.stringify({ op: 'accept', runId: `r-${pid}`, sessionKey: 'agent:main:main', text: 'never answered', at: 1 })] : []),
  ].join('\n') + '\n'

/** a stopped state dir's files, with a live runtime's, a dead one's and (Linux) a recycled pid's journal */
function stateWithJournals(): { state: string; names: Record<'live' | 'dead' | 'recycled', string> } {
  const state = path.join(tempDir('loopdesk-bj-'), 'state')
  fs.mkdirSync(path.join(state, SESSIONS), { recursive: true })
  fs.mkdirSync(path.join(state, 'workspace'))
  fs.writeFileSync(path.join(state, 'loopdesk.json'), '{}\n')
  fs.writeFileSync(path.join(state, SESSIONS, 'sessions.json'), '{}\n')
  const names = { live: `accepted.${live}-0000a11e.jsonl`, dead: `accepted.${deadPid}-0000dead.jsonl`, recycled: `accepted.${live}-0000beef.jsonl` }
  fs.writeFileSync(path.join(state, SESSIONS, names.live), journal(live, liveStart, true))
  fs.writeFileSync(path.join(state, SESSIONS, names.dead), journal(deadPid, undefined, true))
  // the live pid, but not the process that wrote it (another start time): its writer is gone
  if (liveStart) fs.writeFileSync(path.join(state, SESSIONS, names.recycled), journal(live, `${liveStart}0`, false))
  // in the workspace a file of that name is the user's
  fs.writeFileSync(path.join(state, 'workspace', names.live), 'a project file')
  return { state, names }
}

const files = (dir: string): string[] =>
  fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name))).sort()

describe('accepted-message journals in backup and restore', () => {
  it('a backup leaves out a running runtime’s journal and copies a dead one’s (and a workspace file of that name)', async () => {
    const { state, names } = stateWithJournals()
    const out = path.join(tempDir('loopdesk-bj-b-'), 'b')
    const r = await runCliCaptured(['backup', out, '--with-workspace', '--state-dir', state])
    expect(r.code, r.err).toBe(0)
    const copied = files(out)
    expect(copied).not.toContain(`${SESSIONS}/${names.live}`)
    expect(copied).toContain(`${SESSIONS}/${names.dead}`)
    if (liveStart) expect(copied).toContain(`${SESSIONS}/${names.recycled}`)
    expect(copied).toContain(`workspace/${names.live}`)
    expect(fs.readFileSync(path.join(out, SESSIONS, names.dead), 'utf8')).toContain('never answered')
    expect(JSON.parse(fs.readFileSync(path.join(out, 'loopdesk-backup.json'), 'utf8')).files).toBe(copied.length - 1)
  })

  it('a restore drops a live runtime’s journal an older backup holds, and the restored dir is not taken for in use', async () => {
    const { state, names } = stateWithJournals()
    const out = path.join(tempDir('loopdesk-bj-b-'), 'b')
    expect((await runCliCaptured(['backup', out, '--state-dir', state])).code).toBe(0)
    // as a backup made before journals of running runtimes were left out: the live one inside, counted
    const extra = path.join(out, SESSIONS, names.live)
    fs.copyFileSync(path.join(state, SESSIONS, names.live), extra)
    const manifestFile = path.join(out, 'loopdesk-backup.json')
    const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'))
    fs.writeFileSync(manifestFile, JSON.stringify({ ...manifest, files: manifest.files + 1, bytes: manifest.bytes + fs.statSync(extra).size }))

    const target = path.join(tempDir('loopdesk-bj-t-'), 'state')
    const r = await runCliCaptured(['restore', out, '--yes', '--state-dir', target])
    expect(r.code, r.err).toBe(0)
    const restored = fs.readdirSync(path.join(target, SESSIONS))
    expect(restored).not.toContain(names.live)
    expect(restored).toContain(names.dead)
    // nothing uses it: a restore into it again is not refused (a recycled pid's journal is no user either)
    const again = await runCliCaptured(['restore', out, '--state-dir', target])
    expect(again.err).toBe('')
    expect(again.code).toBe(0)
  })
})
