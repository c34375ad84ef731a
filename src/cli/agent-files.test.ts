// `loopdesk agent --file`: files from disk go with the message (through the gateway and --local), checked
// against the attachment limits before anything is sent.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCliCaptured } from '../../test/fixtures/cli-io'
import { useRuntimeGateway } from '../../test/fixtures/runtime-gateway'
import { tempDir } from '../../test/fixtures/temp-dir'
import { testConfig } from '../../test/fixtures/test-runtime'

const TOKEN = 'agent-files-token-0123456789abcdef'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'Got them.' } })
const PNG_1x1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')

const files = tempDir('loopdesk-cli-files-')
fs.writeFileSync(path.join(files, 'notes.txt'), 'buy milk\n')
fs.writeFileSync(path.join(files, 'dot.png'), PNG_1x1)

const agent = (args: string[]) =>
  runCliCaptured(['agent', ...args, '--url', env.stack.gw.url, '--state-dir', tempDir('loopdesk-cli-files-state-')], { LOOPDESK_GATEWAY_TOKEN: TOKEN })

describe('loopdesk agent --file', () => {
  it('attaches files through the gateway: saved by the runtime and named to the model; a message may be only files', async () => {
    const r = await agent(['-m', 'what are these?', '--file', path.join(files, 'notes.txt'), '-f', path.join(files, 'dot.png'), '--session-key', 'agent:main:files'])
    expect(r).toMatchObject({ code: 0, out: 'Got them.\n' })
    const sent = JSON.stringify(env.server.requests.at(-1)!.body.messages)
    expect(sent).toContain('what are these?')
    expect(sent).toContain('notes.txt')
    expect(sent).toContain('dot.png')
    const history = await env.stack.rt.call('chat.history', { sessionKey: 'agent:main:files' })
    expect(JSON.stringify(history.messages[0].content)).toMatch(/notes\.txt/)
    const media = fs.readdirSync(path.join(env.stack.rt.stateDir, 'media', 'inbound'))
    expect(media.some((f) => f.endsWith('.png'))).toBe(true)

    expect(await agent(['--file', path.join(files, 'notes.txt'), '--session-key', 'agent:main:files-only'])).toMatchObject({ code: 0 })
  })

  it('refuses what cannot go, before connecting: a missing file, a directory, one too big, no message and no file', async () => {
    const big = path.join(files, 'big.bin')
    fs.writeFileSync(big, '')
    fs.truncateSync(big, 19 * 1024 * 1024) // sparse: nothing is read
    const n = env.server.requests.length
    expect(await agent(['-m', 'x', '--file', path.join(files, 'nope.txt')])).toMatchObject({ code: 2, err: expect.stringMatching(/cannot attach .*nope\.txt: no such file \(see: loopdesk --help\)\n$/) })
    // a message that names where to look gets no second hint
    expect(await agent(['-m', 'x', '--model', 'no-slash'])).toMatchObject({ code: 2, err: expect.not.stringMatching(/\(see: .*\(see: /) })
    expect(await agent(['-m', 'x', '--file', files])).toMatchObject({ code: 2, err: expect.stringContaining('not a file') })
    expect(await agent(['-m', 'x', '--file', big])).toMatchObject({ code: 2, err: expect.stringMatching(/big\.bin is 19 MB: a file may be at most 18 MB/) })
    expect(await agent([])).toMatchObject({ code: 2, err: expect.stringContaining('--message TEXT (or --file PATH)') })
    expect(env.server.requests.length).toBe(n)
  })

  it('--local attaches the same way', async () => {
    const state = tempDir('loopdesk-cli-files-local-')
    fs.writeFileSync(path.join(state, 'loopdesk.json'), JSON.stringify(testConfig(env.server)))
    const r = await runCliCaptured(['agent', '--local', '-m', 'read this', '--file', path.join(files, 'notes.txt'), '--state-dir', state], {})
    expect(r).toMatchObject({ code: 0, out: 'Got them.\n' })
    expect(JSON.stringify(env.server.requests.at(-1)!.body.messages)).toContain('notes.txt')
  })
})
