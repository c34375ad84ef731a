// `loopdesk agent -m -`: the message is read from standard input — as it came (unicode, newlines; a prompt kept in a
// file), without the line break `echo` adds; an empty input or one over the message limit is a usage
// error before anything is sent.
import { describe, expect, it } from 'vitest'
import { runCliCaptured } from '../../test/fixtures/cli-io'
import { useRuntimeGateway } from '../../test/fixtures/runtime-gateway'
import { tempDir } from '../../test/fixtures/temp-dir'
import { MAX_MESSAGE_CHARS } from '../shared/message-limit'

const TOKEN = 'agent-stdin-token-0123456789abcdef'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'got it' } })

const agent = (args: string[], stdin: string) =>
  runCliCaptured(['agent', ...args, '--url', env.stack.gw.url, '--state-dir', tempDir('loopdesk-cli-stdin-')], { LOOPDESK_GATEWAY_TOKEN: TOKEN }, stdin)

/** the text of the last user message the model was sent */
function lastUserText(): string {
  const msgs = env.server.requests.at(-1)!.body.messages as Array<{ role: string; content: unknown }>
  const user = msgs.filter((m) => m.role === 'user').at(-1)!
  return typeof user.content === 'string' ? user.content : (user.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('')
}

describe('loopdesk agent -m -', () => {
  it('sends standard input as the message: unicode and newlines kept, the last line break dropped', async () => {
    const text = `Résumé 日本語 🎉\nsecond line\n${'x'.repeat(20_000)}`
    const r = await agent(['-m', '-', '--session-key', 'agent:main:stdin'], `${text}\n`)
    expect(r.code, r.err).toBe(0)
    expect(r.out).toBe('got it\n')
    expect(lastUserText()).toBe(text)
  })

  it('an empty input is a usage error (exit 2), nothing sent', async () => {
    const before = env.server.requests.length
    expect(await agent(['-m', '-'], '\n')).toMatchObject({ code: 2, err: expect.stringContaining('--message -: standard input was empty') })
    expect(env.server.requests.length).toBe(before)
  })

  it('an input over the message limit says by how much (exit 2), nothing sent', async () => {
    const before = env.server.requests.length
    const r = await agent(['-m', '-'], 'y'.repeat(MAX_MESSAGE_CHARS + 1234))
    expect(r.code).toBe(2)
    expect(r.err).toContain('the message on standard input is 1,234 characters over the limit of 1,000,000')
    expect(env.server.requests.length).toBe(before)
  })
})
