// A state dir that is a file: the commands that work on its files (backup, sessions prune, agent --local) say so in
// those words, exit 1, instead of the errno of the first call that stepped into it (ENOTDIR … scandir).
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCliCaptured } from '../../test/fixtures/cli-io'
import { tempDir } from '../../test/fixtures/temp-dir'

describe('a state dir that is a file', () => {
  it('backup, sessions prune and agent --local name it', async () => {
    const dir = tempDir('ld-sdfile-')
    const file = path.join(dir, 'not-a-folder')
    fs.writeFileSync(file, 'x')
    for (const argv of [['backup', path.join(dir, 'bk')], ['sessions', 'prune'], ['agent', '--local', '-m', 'hi']]) {
      const r = await runCliCaptured([...argv, '--state-dir', file])
      expect(r.code, argv.join(' ')).toBe(1)
      expect(r.err, argv.join(' ')).toContain(`the state dir ${file} is not a folder`)
      expect(r.err, argv.join(' ')).not.toMatch(/ENOTDIR/)
    }
    expect(fs.readFileSync(file, 'utf8')).toBe('x')
    fs.rmSync(dir, { recursive: true, force: true })
  })
})
