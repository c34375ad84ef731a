// Session names in the sidebar and the header are isolated (<bdi>): a bidi override in a label stays inside the
// name, never reorders the row's flags or the header's model and state; an invisible-only first message gives no
// blank name.
import { screen, within } from '@testing-library/react'
import { beforeEach, describe, expect, it } from 'vitest'
import { renderApp } from '../test-utils'

beforeEach(() => localStorage.clear())

describe('session names and bidi text', () => {
  it('the sidebar row and the header show the name inside a <bdi>', async () => {
    const label = 'report \u202Etxt.exe'
    await renderApp({ seed: [{ key: 'agent:main:main', label, messages: 2 }] })
    const nav = screen.getByRole('navigation', { name: 'Sessions' })
    const inRow = within(nav).getByText(label)
    expect(inRow.tagName).toBe('BDI')
    const h1 = screen.getByRole('heading', { level: 1 })
    expect(h1.querySelector('bdi')).toHaveTextContent(label)
  })
})
