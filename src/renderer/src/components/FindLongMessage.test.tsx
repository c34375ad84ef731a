// Find reads each message's first 50,000 characters (SEARCH_CHARS_PER_MESSAGE). A reply longer than that — a
// 5,000-line file — shows text find cannot reach: "No matches" for a line on screen read as a broken find
// (seen in Chromium), so the status says where it looked.
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { preloadFindBar } from '../lazy-views'
import { LONG, renderApp } from '../test-utils'

beforeAll(async () => {
  await preloadFindBar()
})
beforeEach(() => localStorage.clear())

const lines = (n: number) => Array.from({ length: n }, (_, i) => `const line${i} = ${i} // needle${i}`).join('\n')

async function findIn(reply: string, query: string) {
  const user = userEvent.setup({ delay: null })
  await renderApp({ scripts: [{ steps: [{ kind: 'text', text: reply }] }], chunkChars: 20_000 })
  const box = screen.getByRole('textbox', { name: 'Message' })
  await user.type(box, 'print the file{Enter}')
  await waitFor(() => expect(screen.getAllByRole('status').at(-1)).toHaveTextContent(/^Done/), LONG)
  box.focus()
  fireEvent.keyDown(window, { key: 'f', code: 'KeyF', ctrlKey: true })
  const bar = await screen.findByRole('search', { name: 'Find in conversation' })
  await user.type(within(bar).getByRole('searchbox', { name: 'Find in conversation' }), query)
  return bar
}

describe('find with a message longer than what find reads', () => {
  it('no match: says it looked in the first 50,000 characters of each message', async () => {
    const bar = await findIn('```ts\n' + lines(5000) + '\n```\n', 'needle4321')
    await waitFor(() => expect(within(bar).getByRole('status')).toHaveTextContent('No matches in the first 50,000 characters of each message'), LONG)
  })

  it('only short messages: plain "No matches"', async () => {
    const bar = await findIn('```ts\n' + lines(50) + '\n```\n', 'needle4321')
    await waitFor(() => expect(within(bar).getByRole('status')).toHaveTextContent(/^No matches$/), LONG)
  })
})
