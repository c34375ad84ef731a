// Settings → Agent: the exec allowlist says that a build/test runner runs the agent's own code, and warns on
// each entry that is one.
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { FakeBridge } from '../bridge/fake-bridge'
import { renderApp } from '../test-utils'
import { preloadSettings } from '../lazy-views'

beforeAll(async () => {
  await preloadSettings()
})
beforeEach(() => localStorage.clear())

async function openAllowlist(bridge: FakeBridge) {
  const user = userEvent.setup()
  await renderApp({}, bridge)
  await user.click(screen.getByRole('button', { name: 'Settings' }))
  const dialog = await screen.findByRole('dialog', { name: 'Settings' })
  await user.click(within(dialog).getByRole('button', { name: 'Agent' }))
  return { user, card: within(within(dialog).getByRole('group', { name: 'Commands that run without asking' })) }
}

describe('exec allowlist in Settings', () => {
  it('notes that runners run workspace code, warns per runner entry, and saves the list it shows', async () => {
    const bridge = new FakeBridge({ tickMs: 1, chunkChars: 24 })
    await bridge.settingsSet({ patch: { tools: { exec: { allowlist: ['git status*', 'npm test'] } } } })
    const { user, card } = await openAllowlist(bridge)

    expect(card.getByText(/A build or test runner runs the agent's own code:/)).toBeInTheDocument()
    const list = within(card.getByRole('list', { name: 'Allowed commands' }))
    expect(list.getAllByRole('listitem').map((li) => li.querySelector('code')?.textContent)).toEqual(['git status*', 'npm test'])
    expect(card.getByRole('note', { name: 'Warning for npm test' })).toHaveTextContent('Runs code the agent can write (package.json scripts)')
    expect(card.queryByRole('note', { name: 'Warning for git status*' })).toBeNull()

    // a runner being typed is flagged before it is added
    await user.type(card.getByLabelText('Command to allow'), 'make')
    expect(card.getByRole('note', { name: 'Warning for the command being added' })).toHaveTextContent('the Makefile')
    await user.click(card.getByRole('button', { name: 'Add to the allowlist' }))
    expect(card.getByRole('note', { name: 'Warning for make' })).toHaveTextContent('the Makefile')

    await user.click(card.getByRole('button', { name: 'Remove npm test' }))
    expect(card.queryByRole('note', { name: 'Warning for npm test' })).toBeNull()
    await user.click(card.getByRole('button', { name: 'Save the allowlist' }))
    await waitFor(() => expect(bridge.calls.filter((c) => c.name === 'settingsSet')).toHaveLength(2))
    expect(bridge.calls.filter((c) => c.name === 'settingsSet').at(-1)?.params).toMatchObject({
      patch: { tools: { exec: { allowlist: ['git status*', 'make'] } } },
      replacePaths: ['tools.exec.allowlist'],
    })
  })

  it('an empty list says every command asks', async () => {
    const { card } = await openAllowlist(new FakeBridge({ tickMs: 1, chunkChars: 24 }))
    expect(card.getByText('None: every command asks.')).toBeInTheDocument()
    expect(card.queryAllByRole('note')).toHaveLength(0)
  })
})
