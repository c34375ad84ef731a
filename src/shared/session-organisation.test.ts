import {
  normalizeSessionColorValue,
  normalizeSessionIconValue,
  SESSION_AGENT_ATTENTION_ICON_IDS,
  SESSION_COLOR_IDS,
  SESSION_ICON_GLYPH_IDS,
} from '@openclaw/gateway-protocol'
import { describe, expect, it } from 'vitest'
import {
  applyOrganisationPatch,
  ATTENTION_ICONS,
  compareForSidebar,
  normalizeSessionColor,
  normalizeSessionIcon,
  organisationRowFields,
  sanitizeStatusNote,
  SESSION_COLORS,
  SESSION_ICON_GLYPHS,
  type SessionOrganisation,
} from './session-organisation'

const MIN = 60_000

describe('vocabularies match OpenClaw (package normalizers are a devDependency: compared here)', () => {
  it('ids', () => {
    expect([...ATTENTION_ICONS]).toEqual([...SESSION_AGENT_ATTENTION_ICON_IDS])
    expect([...SESSION_COLORS]).toEqual([...SESSION_COLOR_IDS])
    expect([...SESSION_ICON_GLYPHS]).toEqual([...SESSION_ICON_GLYPH_IDS])
  })
  it('icons and colors normalize the same way', () => {
    for (const v of ['🚀', ' 🚀 ', '👨‍👩‍👧', '🇫🇷', '1️⃣', 'bot', 'kanban', 'Bot', 'a', 'ab', '🚀🚀', '', '  ', '<svg/>', 'é', '∑']) {
      expect(normalizeSessionIcon(v) ?? null, JSON.stringify(v)).toBe(normalizeSessionIconValue(v))
    }
    for (const v of ['red', ' Blue ', 'CYAN', 'teal', '', '#ff0000']) {
      expect(normalizeSessionColor(v) ?? null, v).toBe(normalizeSessionColorValue(v))
    }
  })
})

describe('applyOrganisationPatch', () => {
  it('archive unpins and keeps the first archive time; unarchive clears it; pinning an archived session is refused', () => {
    const org: SessionOrganisation = { pinnedAt: 1 }
    expect(applyOrganisationPatch(org, { archived: true }, 10)).toBeUndefined()
    expect(org).toEqual({ archivedAt: 10 })
    expect(applyOrganisationPatch(org, { archived: true }, 20)).toBeUndefined()
    expect(org.archivedAt).toBe(10)
    expect(applyOrganisationPatch({ ...org }, { pinned: true }, 30)).toBe('cannot pin an archived session; restore it first')
    expect(applyOrganisationPatch(org, { archived: false, pinned: true }, 30)).toBeUndefined()
    expect(org).toEqual({ pinnedAt: 30 })
    expect(applyOrganisationPatch(org, { pinned: true }, 40)).toBeUndefined()
    expect(org.pinnedAt).toBe(30) // already pinned: its time stays
    expect(applyOrganisationPatch(org, { pinned: false }, 50)).toBeUndefined()
    expect(org).toEqual({})
  })

  it('unread marks strictly increase; reading clears the mark and the status note', () => {
    const org: SessionOrganisation = { agentStatus: { note: 'n', expiresAt: 1e15 } }
    applyOrganisationPatch(org, { unread: true }, 100)
    expect(org.markedUnreadAt).toBe(100)
    applyOrganisationPatch(org, { unread: true }, 100)
    expect(org.markedUnreadAt).toBe(101)
    applyOrganisationPatch(org, { unread: false }, 200)
    expect(org).toEqual({ lastReadAt: 200 })
  })

  it('icon, color, category: set, normalized, cleared with null; invalid values refused', () => {
    const org: SessionOrganisation = {}
    expect(applyOrganisationPatch(org, { icon: ' 🧪 ', color: 'Green', category: '  Research ' }, 1)).toBeUndefined()
    expect(org).toEqual({ icon: '🧪', color: 'green', category: 'Research' })
    expect(applyOrganisationPatch({}, { icon: 'rocket' }, 1)).toMatch(/^invalid icon/)
    expect(applyOrganisationPatch({}, { color: 'teal' }, 1)).toMatch(/^invalid color/)
    expect(applyOrganisationPatch({}, { category: '   ' }, 1)).toBe('invalid category: empty')
    expect(applyOrganisationPatch(org, { icon: null, color: null, category: null }, 2)).toBeUndefined()
    expect(org).toEqual({})
  })

  it('status note: ttl (default 30 min), attention kept while the note lives, null clears both', () => {
    const org: SessionOrganisation = {}
    expect(applyOrganisationPatch(org, { attention: 'hand' }, 0)).toBe('statusNote required before setting attention or ttlMinutes')
    expect(applyOrganisationPatch(org, { statusNote: '  waiting\n for   you ', attention: 'key' }, 0)).toBeUndefined()
    expect(org.agentStatus).toEqual({ note: 'waiting for you', expiresAt: 30 * MIN, attention: 'key' })
    expect(applyOrganisationPatch(org, { ttlMinutes: 120 }, MIN)).toBeUndefined()
    expect(org.agentStatus).toEqual({ note: 'waiting for you', expiresAt: 121 * MIN, attention: 'key' })
    expect(applyOrganisationPatch(org, { statusNote: null, attention: 'hand' }, 0)).toBe('cannot clear and set agent status in the same patch')
    expect(applyOrganisationPatch(org, { attention: null }, 0)).toBeUndefined()
    expect(org).toEqual({})
    // an expired note cannot be extended: a new one is needed
    const old: SessionOrganisation = { agentStatus: { note: 'old', expiresAt: 5 } }
    expect(applyOrganisationPatch(old, { ttlMinutes: 5 }, 10)).toBe('statusNote required before setting attention or ttlMinutes')
    expect(applyOrganisationPatch({}, { statusNote: 'x', ttlMinutes: 121 }, 0)).toBe('invalid ttlMinutes (use 1-120)')
  })

  it('sanitizes notes to 120 UTF-16 units without splitting a surrogate pair', () => {
    expect(sanitizeStatusNote('x'.repeat(200))).toHaveLength(120)
    const cut = sanitizeStatusNote(`${'x'.repeat(119)}😀tail`)
    expect(cut).toBe('x'.repeat(119))
  })
})

describe('row fields and order', () => {
  it('unread tracking starts with the first read', () => {
    expect(organisationRowFields({}, 500, 0).unread).toBe(false)
    expect(organisationRowFields({ lastReadAt: 400 }, 500, 0).unread).toBe(true)
    expect(organisationRowFields({ lastReadAt: 600 }, 500, 0).unread).toBe(false)
  })
  it('pinned first, archived last, each most recently updated first', () => {
    const rows = [
      { key: 'a', updatedAt: 3 },
      { key: 'b', updatedAt: 1, pinned: true },
      { key: 'c', updatedAt: 2, pinned: true },
      { key: 'd', updatedAt: 4 },
      { key: 'e', updatedAt: 9, archived: true },
    ]
    expect(rows.sort(compareForSidebar).map((r) => r.key)).toEqual(['c', 'b', 'd', 'a', 'e'])
  })
  it('orders by the last run, so a rename (which bumps updatedAt) does not move a session', () => {
    const rows = [
      { key: 'renamed', updatedAt: 100, startedAt: 5, endedAt: 6 },
      { key: 'recent', updatedAt: 20, startedAt: 19, endedAt: 20 },
      { key: 'running', updatedAt: 30, startedAt: 30 },
      { key: 'never-ran', updatedAt: 10 },
      { key: 'empty-renamed', updatedAt: 200, createdAt: 8 },
    ]
    expect(rows.sort(compareForSidebar).map((r) => r.key)).toEqual(['running', 'recent', 'never-ran', 'empty-renamed', 'renamed'])
  })
})
