// `loopdesk sessions prune`: archived transcripts older than N days are listed, and deleted only with --yes;
// live transcripts and everything else stay. Works on the state dir directly.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCliCaptured } from '../../test/fixtures/cli-io'
import { tempDir } from '../../test/fixtures/temp-dir'
import { archivedAt, archivedTranscriptFile } from '../main/runtime/sessions/paths'

const DAY = 86_400_000

function stateWithArchives() {
  const state = tempDir('loopdesk-prune-')
  const dir = path.join(state, 'agents', 'main', 'sessions')
  fs.mkdirSync(dir, { recursive: true })
  const live = path.join(dir, '11111111-1111-4111-8111-111111111111.jsonl')
  fs.writeFileSync(live, '{"type":"session"}\n')
  fs.writeFileSync(path.join(dir, 'sessions.json'), '{}')
  const old1 = archivedTranscriptFile(live, 'reset', new Date(Date.now() - 90 * DAY))
  const old2 = archivedTranscriptFile(path.join(dir, '22222222-2222-4222-8222-222222222222.jsonl'), 'deleted', new Date(Date.now() - 40 * DAY))
  const recent = archivedTranscriptFile(live, 'new', new Date(Date.now() - 2 * DAY))
  for (const f of [old1, old2, recent]) fs.writeFileSync(f, 'x'.repeat(1000))
  return { state, dir, live, old1, old2, recent }
}

const prune = (state: string, args: string[] = []) => runCliCaptured(['sessions', 'prune', ...args, '--state-dir', state])

describe('loopdesk sessions prune', () => {
  it('lists archives older than 30 days and deletes nothing without --yes; with it, only those go', async () => {
    const s = stateWithArchives()
    const dry = await prune(s.state)
    expect(dry).toMatchObject({ code: 0, out: '2 archived transcripts older than 30 days (2 KB); nothing deleted — run again with --yes to delete them\n' })
    expect([s.old1, s.old2, s.recent, s.live].every((f) => fs.existsSync(f))).toBe(true)
    const done = await prune(s.state, ['--yes'])
    expect(done).toMatchObject({ code: 0, out: 'deleted 2 of 2 archived transcripts older than 30 days (2 KB)\n' })
    expect(fs.existsSync(s.old1) || fs.existsSync(s.old2)).toBe(false)
    expect([s.recent, s.live, path.join(s.dir, 'sessions.json')].every((f) => fs.existsSync(f))).toBe(true)
    expect((await prune(s.state, ['--older-than', '1', '--yes'])).out).toBe('deleted 1 of 1 archived transcript older than 1 day (1 KB)\n')
    expect(fs.existsSync(s.live)).toBe(true)
    expect((await prune(s.state)).out).toBe('no archived transcripts older than 30 days\n')
  })

  it('refuses a bad --older-than and a state dir that is not there', async () => {
    const s = stateWithArchives()
    expect((await prune(s.state, ['--older-than', 'soon'])).code).toBe(2)
    expect((await prune(s.state, ['extra'])).code).toBe(2)
    // flags that do nothing here are refused, not ignored (--json would still print prose)
    expect(await prune(s.state, ['--json'])).toMatchObject({ code: 2, err: 'loopdesk: sessions prune takes no --json (see: loopdesk --help)\n' })
    expect((await prune(s.state, ['--url', 'ws://127.0.0.1:1'])).code).toBe(2)
    expect(await prune('/nonexistent/loopdesk-prune')).toMatchObject({ code: 1, err: expect.stringContaining('no state dir') })
  })

  it('archivedAt reads the time an archive name carries, and nothing else', () => {
    const at = new Date('2026-03-04T05:06:07.890Z')
    expect(archivedAt(path.basename(archivedTranscriptFile('/x/abc.jsonl', 'reset', at)))).toBe(at.getTime())
    for (const name of ['abc.jsonl', 'sessions.json', 'abc.jsonl.reset', 'abc.jsonl.reset.yesterday', 'abc.txt.reset.2026-03-04T05-06-07-890Z']) expect(archivedAt(name), name).toBeUndefined()
  })
})
