import { beforeEach, describe, expect, it } from 'vitest'
import { MAX_MESSAGE_CHARS } from '../../../shared/message-limit'
import { MAX_SAVED_DRAFT_CHARS, MAX_SAVED_DRAFTS_CHARS, savedDrafts, withDraft } from './saved-drafts'
import { createAppStores, saveDraftsNow } from './stores'

beforeEach(() => localStorage.clear())

const stored = () => JSON.parse(localStorage.getItem('loopdesk.drafts') ?? '{}') as Record<string, string>

describe('draft bounds', () => {
  it('an edited draft moves last (most recent), an emptied one goes', () => {
    let d = withDraft({}, 'a', 'one')
    d = withDraft(d, 'b', 'two')
    d = withDraft(d, 'a', 'one more')
    expect(Object.keys(d)).toEqual(['b', 'a'])
    expect(withDraft(d, 'b', '')).toEqual({ a: 'one more' })
  })

  it('saved: no empty or too long draft, the least recently edited dropped past the budget, the open one kept', () => {
    // two drafts of the longest saved size fit the budget, three do not
    const near = (c: string) => c.repeat(MAX_SAVED_DRAFT_CHARS)
    expect(2 * MAX_SAVED_DRAFT_CHARS).toBeLessThanOrEqual(MAX_SAVED_DRAFTS_CHARS)
    expect(3 * MAX_SAVED_DRAFT_CHARS).toBeGreaterThan(MAX_SAVED_DRAFTS_CHARS)
    const drafts = { old: near('o'), mid: near('m'), empty: '', long: 'l'.repeat(MAX_SAVED_DRAFT_CHARS + 1), last: near('n') }
    expect(Object.keys(savedDrafts(drafts))).toEqual(['mid', 'last'])
    // the open session's draft first, even the least recently edited; the order stays the edit order
    expect(Object.keys(savedDrafts(drafts, 'old'))).toEqual(['old', 'last'])
    expect(savedDrafts({ a: 'x', b: 7, c: '' })).toEqual({ a: 'x' })
  })

  it('several near-limit drafts: localStorage stays within the budget, memory keeps them all; a stored "" is dropped on load', () => {
    localStorage.setItem('loopdesk.drafts', JSON.stringify({ gone: '', kept: 'hello' }))
    const stores = createAppStores()
    expect(stores.composer.getState().drafts).toEqual({ kept: 'hello' })
    expect(stored()).toEqual({ kept: 'hello' })

    let drafts = stores.composer.getState().drafts
    for (const k of ['s1', 's2', 's3', 's4']) drafts = withDraft(drafts, k, k.repeat(MAX_MESSAGE_CHARS / 2))
    drafts = withDraft(drafts, 's5', 'short')
    stores.composer.setState({ drafts })
    stores.sessions.setState({ selectedKey: 's1' })
    saveDraftsNow(stores)
    const saved = stored()
    expect(JSON.stringify(saved).length).toBeLessThanOrEqual(MAX_SAVED_DRAFTS_CHARS + 1000)
    expect(saved.s5).toBe('short')
    expect(saved.kept).toBe('hello')
    expect(Object.keys(stores.composer.getState().drafts)).toEqual(['kept', 's1', 's2', 's3', 's4', 's5'])
    expect(stores.composer.getState().drafts.s1).toHaveLength(MAX_MESSAGE_CHARS)
    expect(stores.composer.getState().draftsUnsaved).toBeUndefined()
  })
})
