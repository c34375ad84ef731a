// Cards and tool groups the find bar opened only to show a match fold back when find moves on or closes;
// ones the user opened, or clicked in, stay open.
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { preloadFindBar, preloadToolGroup } from '../lazy-views'
import { LONG, renderApp } from '../test-utils'

beforeAll(async () => {
  await preloadToolGroup()
  await preloadFindBar()
})
beforeEach(() => localStorage.clear())

// six reads (one group row), then a reply, then two single calls of another run: a card outside any group
const reads = Array.from({ length: 6 }, (_, i) => ({
  kind: 'tool' as const,
  name: 'read',
  args: { path: `file-${i}.txt` },
  result: { content: [{ type: 'text', text: `text ${i}` }] },
}))
const single = (path: string) => ({ kind: 'tool' as const, name: 'exec', args: { command: `cat ${path}` }, result: { content: [{ type: 'text', text: 'done' }] } })

async function setup() {
  const app = await renderApp({
    scripts: [
      { steps: [...reads, { kind: 'text' as const, text: 'All read.' }] },
      { steps: [single('alpha.log'), { kind: 'text' as const, text: 'Between.' }, single('beta.log'), { kind: 'text' as const, text: 'Both shown.' }] },
    ],
  })
  const user = userEvent.setup({ delay: null })
  await user.type(screen.getByRole('textbox', { name: 'Message' }), 'read them{Enter}')
  await screen.findByText('All read.', undefined, LONG)
  await user.type(screen.getByRole('textbox', { name: 'Message' }), 'show logs{Enter}')
  await screen.findByText('Both shown.', undefined, LONG)
  fireEvent.keyDown(window, { key: 'f', code: 'KeyF', ctrlKey: true })
  const bar = await screen.findByRole('search', { name: 'Find in conversation' })
  const field = within(bar).getByRole('searchbox')
  const find = async (q: string) => {
    await user.clear(field)
    await user.type(field, q)
  }
  return { ...app, user, bar, field, find }
}

const groupToggle = () => screen.getByRole('button', { name: /6 tool calls/ })
const cardHead = (text: RegExp) => {
  const card = screen.getAllByRole('group', { name: /^Tool / }).find((c) => text.test(c.textContent ?? ''))
  return card ? within(card).getByRole('button', { name: /read|exec/ }) : undefined
}
const headOpen = (text: RegExp) => cardHead(text)?.getAttribute('aria-expanded') === 'true'

describe('what find opened folds back', () => {
  it('moving to a match elsewhere folds the card and the group it opened; closing the bar folds the last one', async () => {
    const { find, user, stores } = await setup()
    await find('file-4.txt')
    await waitFor(() => expect(headOpen(/file-4\.txt/)).toBe(true), LONG)
    expect(groupToggle()).toHaveAttribute('aria-expanded', 'true')

    // a match in a card outside the group: the group (and its card) fold back, that card opens
    await find('alpha.log')
    await waitFor(() => expect(headOpen(/alpha\.log/)).toBe(true), LONG)
    await waitFor(() => expect(groupToggle()).toHaveAttribute('aria-expanded', 'false'))
    expect(stores.ui.getState().expanded['tools:' + stores.runs.getState().transcripts['agent:main:main']!.items.find((it) => it.kind === 'tool')!.key]).toBeFalsy()

    // Escape closes the bar: the card find opened closes too
    await user.keyboard('{Escape}')
    await waitFor(() => expect(headOpen(/alpha\.log/)).toBe(false))
    expect(stores.ui.getState().findOpened).toEqual({})
  })

  it('stepping between matches in one group keeps the group open and folds the previous card', async () => {
    const { find, user } = await setup()
    // "text 5" and "text 4" (newest first): two cards of the group
    await find('text ')
    await waitFor(() => expect(headOpen(/file-5\.txt/)).toBe(true), LONG)
    await user.keyboard('{Shift>}{Enter}{/Shift}')
    await waitFor(() => expect(headOpen(/file-4\.txt/)).toBe(true), LONG)
    await waitFor(() => expect(headOpen(/file-5\.txt/)).toBe(false))
    expect(groupToggle()).toHaveAttribute('aria-expanded', 'true')
  })

  it('a card the user opened, or clicked in after find opened it, stays open', async () => {
    const { find, user, field } = await setup()
    // beta's card opened by the user before finding anything
    await user.click(cardHead(/beta\.log/)!)
    expect(headOpen(/beta\.log/)).toBe(true)
    await find('beta.log')
    await waitFor(() => expect(document.querySelector('[data-found]')).toHaveTextContent('beta.log'), LONG)
    // alpha's card opened by find, then clicked in (its result text)
    await find('alpha.log')
    await waitFor(() => expect(headOpen(/alpha\.log/)).toBe(true), LONG)
    const alpha = screen.getAllByRole('group', { name: 'Tool exec' }).find((c) => /alpha\.log/.test(c.textContent ?? ''))!
    fireEvent.pointerDown(within(alpha).getAllByText('done')[0])
    await user.click(field)
    await user.keyboard('{Escape}')
    await waitFor(() => expect(screen.queryByRole('search', { name: 'Find in conversation' })).toBeNull())
    expect(headOpen(/alpha\.log/)).toBe(true)
    expect(headOpen(/beta\.log/)).toBe(true)
  })
})
