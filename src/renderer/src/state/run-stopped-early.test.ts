// A run stopped or failed before its message reached the model: the runtime keeps the message, closed by an
// empty assistant row (runner/unsent-turn.ts). After a reload the window reads them as it did live — "Stopped",
// or the error with Retry — the rows below are those chat.history serves for them.
import { expect, it } from 'vitest'
import type { HistoryMessage } from '../../../shared/methods'
import { runStatusText } from '../components/Messages'
import { reduce, retryableRun } from './run-reducer'
import { emptyTranscript, type RunItem, type UserItem } from './types'

const SK = 'agent:main:early'
const user = (runId: string, text: string, ts: number): HistoryMessage =>
  ({ role: 'user', content: [{ type: 'text', text }], timestamp: ts, id: `${runId}-u`, runId }) as HistoryMessage
const closing = (runId: string, ts: number, fields: Record<string, unknown>): HistoryMessage =>
  ({ role: 'assistant', content: [], timestamp: ts, id: `${runId}-a`, runId, usage: { input: 0, output: 0, totalTokens: 0 }, ...fields }) as HistoryMessage
const hydrate = (messages: HistoryMessage[]) =>
  reduce(emptyTranscript(SK), { type: 'hydrate', history: { sessionKey: SK, sessionId: 's', hasMore: false, messages } })

it('a message stopped right after it was sent reads as sent and Stopped after a reload', () => {
  const t = hydrate([
    user('r1', 'see the file\n[file: big.txt]', 1000),
    closing('r1', 1001, { stopReason: 'aborted', aborted: true, openclawAbort: { aborted: true, origin: 'rpc', runId: 'r1' } }),
  ])
  expect((t.items.find((i) => i.kind === 'user') as UserItem).text).toContain('big.txt')
  const run = t.items.find((i) => i.kind === 'run') as RunItem
  expect(run.status).toBe('stopped')
  expect(runStatusText(run)).toBe('Stopped · 1 ms')
  expect(t.items.some((i) => i.kind === 'assistant' && i.text)).toBe(false)
})

it('a message whose run failed before the model call reads as sent, with the error and Retry', () => {
  const error = 'no API key for model provider "openai": store an API key for "openai" (Settings → Models) or set its environment variable'
  const t = hydrate([user('r2', 'my carefully written question', 2000), closing('r2', 2005, { stopReason: 'error', errorMessage: error })])
  const run = t.items.find((i) => i.kind === 'run') as RunItem
  expect(run).toMatchObject({ status: 'error' })
  expect(runStatusText(run)).toContain('no API key for model provider "openai"')
  expect(retryableRun(t)).toBe('r2')
})
