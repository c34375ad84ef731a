import fs from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import net from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { startModelServer } from '../../../../test/fixtures/model-server'
import { startTestRuntime, testConfig } from '../../../../test/fixtures/test-runtime'
import { applyProxyEnv } from '../net/proxy'
import { describeNetworkFailure } from './network-failure'
import { diagnoseConnection, isBareConnectionError } from './network-diagnosis'

const TLS_DIR = new URL('../../../../test/fixtures/tls/', import.meta.url)

async function closedPort(): Promise<number> {
  const s = net.createServer()
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
  const port = (s.address() as net.AddressInfo).port
  await new Promise((r) => s.close(r))
  return port
}

async function listening<T extends http.Server | https.Server>(server: T): Promise<{ server: T; port: number }> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return { server, port: (server.address() as net.AddressInfo).port }
}

afterEach(async () => {
  await applyProxyEnv({})
})

describe('isBareConnectionError', () => {
  it('only the texts that carry no cause', () => {
    expect(isBareConnectionError('fetch failed')).toBe(true)
    expect(isBareConnectionError('Connection error.')).toBe(true)
    expect(isBareConnectionError('Connection error: could not reach x')).toBe(false)
    expect(isBareConnectionError('500 boom')).toBe(false)
    expect(isBareConnectionError(undefined)).toBe(false)
  })
})

describe('diagnoseConnection', () => {
  it('a closed port: connection refused', async () => {
    const port = await closedPort()
    const f = await diagnoseConnection(`http://127.0.0.1:${port}/v1beta`)
    expect(f && describeNetworkFailure(f, 'g')).toBe(`could not reach 127.0.0.1:${port} (provider g): connection refused — is the server running?`)
  })

  it('a name that does not resolve', async () => {
    const f = await diagnoseConnection('https://no-such-host.invalid/v1beta')
    expect(f && describeNetworkFailure(f)).toBe('could not reach no-such-host.invalid: the name no-such-host.invalid could not be resolved')
  })

  it('an https server whose certificate is not trusted: the TLS handshake says so', async () => {
    const { server, port } = await listening(
      https.createServer({ cert: fs.readFileSync(new URL('localhost-cert.pem', TLS_DIR)), key: fs.readFileSync(new URL('localhost-key.pem', TLS_DIR)) }, (_q, r) => r.end('ok')),
    )
    try {
      const f = await diagnoseConnection(`https://localhost:${port}/v1beta`)
      expect(f && describeNetworkFailure(f)).toMatch(new RegExp(`^could not reach localhost:${port}: its TLS certificate was not accepted \\((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE)\\)$`))
    } finally {
      server.close()
    }
  })

  it('a server that accepts the connection now: no cause to report', async () => {
    const { server, port } = await listening(http.createServer((_q, r) => r.end('ok')))
    try {
      expect(await diagnoseConnection(`http://127.0.0.1:${port}/v1`)).toBeUndefined()
    } finally {
      server.close()
    }
    expect(await diagnoseConnection('not a url')).toBeUndefined()
    expect(await diagnoseConnection(undefined)).toBeUndefined()
  })

  it('through a proxy: the connection to the proxy is what is retraced, and the proxy is named', async () => {
    const port = await closedPort()
    await applyProxyEnv({ HTTPS_PROXY: `http://user:pw@127.0.0.1:${port}` })
    const f = await diagnoseConnection('https://generativelanguage.example/v1beta')
    expect(f && describeNetworkFailure(f, 'google')).toBe(
      `could not reach generativelanguage.example (provider google) through the proxy http://127.0.0.1:${port}: connection refused — is the proxy running?`,
    )
  })
})

describe('a Google run whose server is not there says why (its client takes no custom fetch)', () => {
  it('google-generative-ai at a closed port', async () => {
    const port = await closedPort()
    const server = await startModelServer()
    const providers = { gdown: { baseUrl: `http://127.0.0.1:${port}/v1beta`, api: 'google-generative-ai', models: [{ id: 'g', contextWindow: 4096, maxTokens: 100 }] } }
    const rt = await startTestRuntime(server, { config: testConfig(server, { models: { providers } }) })
    try {
      const { runId } = await rt.call('agent', { message: 'hi', idempotencyKey: 'gdown', model: 'gdown/g' })
      const r = await rt.call('agent.wait', { runId, timeoutMs: 15_000 })
      expect((r as { error?: string }).error).toBe(`Connection error: could not reach 127.0.0.1:${port} (provider gdown): connection refused — is the server running?`)
    } finally {
      await rt.close()
      await server.close()
    }
  })
})
