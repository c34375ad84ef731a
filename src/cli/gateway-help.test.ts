// `loopdesk gateway --help` prints the three gateway commands' help (exit 0) like every other command's
// --help; an unknown gateway command is still a usage error.
import { describe, expect, it } from 'vitest'
import { runCliCaptured } from '../../test/fixtures/cli-io'

describe('loopdesk gateway --help', () => {
  it('lists run, call and rotate-token; exit 0', async () => {
    for (const flag of ['--help', '-h', 'help']) {
      const r = await runCliCaptured(['gateway', flag])
      expect(r.code, flag).toBe(0)
      expect(r.out).toMatch(/^loopdesk gateway run /)
      expect(r.out).toContain('\nloopdesk gateway call <method>')
      expect(r.out).toContain('\nloopdesk gateway rotate-token')
    }
    expect(await runCliCaptured(['gateway', 'launch'])).toMatchObject({ code: 2, err: expect.stringContaining('unknown gateway command: launch') })
  })
})
