// Provider set-up mistakes as a server answers them (or a connection fails), and what the run's error then says. A throwaway
// server answers like the real ones do: Ollama's plain "404 page not found" for a base URL without /v1 and
// its `{"error": "…"}` string for a model it does not have, a reverse proxy's HTML 502, a bare 404.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { startModelServer, type ModelServer } from '../../../../test/fixtures/model-server'
import { startTestRuntime, testConfig, type TestRuntime } from '../../../../test/fixtures/test-runtime'

let modelServer: ModelServer
let odd: http.Server
let origin = ''
beforeAll(async () => {
  modelServer = await startModelServer()
  odd = http.createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      const url = req.url ?? ''
      if (url.startsWith('/claude/')) {
        res.writeHead(401, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'x-api-key header is required' } }))
      } else if (url.startsWith('/keyed/')) {
        res.writeHead(401, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ error: { message: 'Authentication Error, No api key passed in.' } }))
      } else if (url.startsWith('/login/')) {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        res.end('<!doctype html><html><head><title>Sign in</title></head><body><form>…</form></body></html>')
      } else if (url.startsWith('/nostream/')) {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ id: 'c1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }] }))
      } else if (url.startsWith('/proxy/')) {
        res.writeHead(502, { 'content-type': 'text/html' })
        res.end('<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>')
      } else if (url === '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ error: 'model "llama9" not found, try pulling it first' }))
      } else if (url.startsWith('/bare/')) {
        res.writeHead(404)
        res.end()
      } else {
        res.writeHead(404, { 'content-type': 'text/plain' })
        res.end('404 page not found')
      }
    })
  })
  await new Promise<void>((r) => odd.listen(0, '127.0.0.1', r))
  origin = `http://127.0.0.1:${(odd.address() as AddressInfo).port}`
})
afterAll(async () => {
  await modelServer.close()
  await new Promise((r) => odd.close(r))
})
let t: TestRuntime | undefined
afterEach(async () => {
  await t?.close()
  t = undefined
})

async function runError(baseUrl: string, api = 'openai-completions', apiKey?: string): Promise<string> {
  const config = testConfig(modelServer, {
    models: { providers: { odd: { baseUrl, api, models: [{ id: 'llama9' }], ...(apiKey ? { apiKey } : {}) } } },
    agents: { defaults: { model: { primary: 'odd/llama9' } } },
  })
  await t?.close()
  t = await startTestRuntime(modelServer, { config })
  await t.call('agent', { message: 'hi', idempotencyKey: 'r1' })
  const w = await t.call('agent.wait', { runId: 'r1', timeoutMs: 15_000 })
  expect(w.status).toBe('error')
  return String((w as { error?: string }).error)
}

describe('a model request the server refuses says what to change', () => {
  it('a base URL without /v1: the URL that got the 404, and the one to try', async () => {
    expect(await runError(origin)).toBe(
      `Model request failed (HTTP 404 from odd): 404 page not found — nothing is served at ${origin}/chat/completions: does the base URL need /v1 (${origin}/v1)?`,
    )
  })

  it('a model the server does not have: its words unquoted, and where the served ids are listed', async () => {
    const msg = await runError(`${origin}/v1`)
    expect(msg).toMatch(/^Model request failed \(HTTP 404 from odd\): model "llama9" not found, try pulling it first — the server does not serve this model id/)
  })

  it("a proxy's HTML error page: its title, not the markup", async () => {
    const msg = await runError(`${origin}/proxy/v1`)
    expect(msg).toBe('Model request failed (HTTP 502 from odd): an HTML page (“502 Bad Gateway”) — a web server or proxy answered, not the model API')
  })

  it('a bare 404 under /v1 names the URL, the base URL and the API to check', async () => {
    expect(await runError(`${origin}/bare/v1`)).toBe(
      `Model request failed (HTTP 404 from odd) — nothing is served at ${origin}/bare/v1/chat/completions: check the base URL, and the API (a server that speaks Anthropic's API needs anthropic-messages)`,
    )
    expect(await runError(`${origin}/bare`, 'anthropic-messages')).toMatch(/nothing is served at .*\/bare\/v1\/messages: check the base URL, and the API \(an OpenAI-compatible server needs openai-completions\)$/)
  })

  it('https:// to a server that speaks plain http: use http://, not a certificate problem', async () => {
    const plain = new URL(modelServer.openaiBaseUrl)
    expect(await runError(`https://${plain.host}/v1`)).toBe(
      `Connection error: could not reach ${plain.host} (provider odd): the server does not speak TLS on port ${plain.port} — if it serves plain http, the base URL should start with http://, not https://.`,
    )
  })

  it('a local server that wants a key: "none is set" when only the keyless placeholder went, "not accepted" for a key of the user\'s', async () => {
    expect(await runError(`${origin}/keyed/v1`)).toMatch(/: Authentication Error, No api key passed in\. — the server wants an API key, and none is set for odd: add it \(Settings → Models/)
    expect(await runError(`${origin}/keyed/v1`, 'openai-completions', 'sk-wrong')).toMatch(/ — the server did not accept the API key for odd: check it \(Settings → Models/)
  })

  it('an Anthropic-compatible server configured as OpenAI-compatible: the API to choose', async () => {
    expect(await runError(`${origin}/claude/v1`, 'openai-completions', 'sk-ant-x')).toBe(
      "Model request failed (HTTP 401 from odd): x-api-key header is required — the server wants its key in x-api-key, as Anthropic's API does: set the endpoint's API to anthropic-messages (Anthropic-compatible)",
    )
  })

  it('a 200 that is no stream (a login page, a server that ignores stream: true) says what came instead', async () => {
    expect(await runError(`${origin}/login/v1`)).toBe(
      `The model server sent an HTML page instead of a reply stream (${origin}/login/v1/chat/completions) — a web server or login proxy answered, not the model API: check the base URL.`,
    )
    expect(await runError(`${origin}/nostream/v1`)).toMatch(/^The model server sent one JSON reply instead of a reply stream \(.*\/nostream\/v1\/chat\/completions\) — the server does not stream replies/)
    expect(await runError(`${origin}/login`, 'anthropic-messages')).toMatch(/^The model server sent an HTML page instead of a reply stream \(.*\/login\/v1\/messages\)/)
  })

  it("a server whose context window is smaller than the model's setting: the setting and the value to give it", async () => {
    await t?.close()
    t = await startTestRuntime(modelServer) // mock/m1: contextWindow 32000
    const said = [
      "'max_tokens' or 'max_completion_tokens' is too large: 1024. This model's maximum context length is 2048 tokens and your request has 1500 input tokens (1024 > 2048 - 1500). None",
      'the request exceeds the available context size (4096 tokens), try increasing it',
    ]
    for (const [i, message] of said.entries()) {
      // every request: an overflow the runtime recognises is compacted and retried first
      modelServer.script(() => ({ status: 400, message }))
      await t.call('agent', { message: 'hi', idempotencyKey: `w${i}` })
      const w = await t.call('agent.wait', { runId: `w${i}`, timeoutMs: 15_000 })
      const window = i === 0 ? 2048 : 4096
      expect((w as { error?: string }).error).toMatch(
        new RegExp(`— the server's context window is ${window} tokens, but mock/m1 is set to 32000: set its context window to ${window} \\(Settings → Models, the “mock” endpoint's model row\\)`),
      )
    }
    // a window the server says is as large as the setting is no setting problem
    modelServer.script(() => ({ status: 400, message: "This model's maximum context length is 32000 tokens. However, your messages resulted in 40000 tokens." }))
    await t.call('agent', { message: 'hi', idempotencyKey: 'w-same' })
    expect(String(((await t.call('agent.wait', { runId: 'w-same', timeoutMs: 15_000 })) as { error?: string }).error)).not.toContain('set its context window')
    modelServer.script([])
  })
})
