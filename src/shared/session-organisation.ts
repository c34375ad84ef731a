// How a session is organised in a sidebar (OpenClaw v4 sessions.patch): pinned, archived, read/unread,
// icon, color, category and a short expiring status note with an attention icon. Pure, so the runtime
// and the renderer's FakeBridge apply a patch and project a row the same way.

/** OpenClaw's attention icons for a status note. */
export const ATTENTION_ICONS = ['hand', 'key', 'alert', 'flag', 'lock', 'hourglass'] as const
export type AttentionIcon = (typeof ATTENTION_ICONS)[number]
/** OpenClaw's session colors (input is trimmed and lowercased). */
export const SESSION_COLORS = ['red', 'blue', 'green', 'yellow', 'purple', 'orange', 'pink', 'cyan'] as const
export type SessionColor = (typeof SESSION_COLORS)[number]
/** OpenClaw's named session glyphs; any other icon must be one emoji. */
export const SESSION_ICON_GLYPHS = ['braces', 'book', 'monitor', 'bot', 'kanban', 'coins'] as const

export const STATUS_NOTE_MAX_CHARS = 120
export const STATUS_NOTE_DEFAULT_TTL_MINUTES = 30
export const STATUS_NOTE_MAX_TTL_MINUTES = 120
export const CATEGORY_MAX_CHARS = 512

export interface SessionAgentStatus {
  note: string
  /** epoch ms; the status is not shown from then on */
  expiresAt: number
  attention?: AttentionIcon
}

/** What is stored per session (timestamps in epoch ms; absent = not set). */
export interface SessionOrganisation {
  archivedAt?: number
  pinnedAt?: number
  /** set when someone explicitly marked the session unread; cleared by reading it */
  markedUnreadAt?: number
  lastReadAt?: number
  icon?: string
  color?: SessionColor
  category?: string
  agentStatus?: SessionAgentStatus
}

/** The organisation fields of sessions.patch (null clears). */
export interface OrganisationPatch {
  archived?: boolean
  pinned?: boolean
  unread?: boolean
  icon?: string | null
  color?: string | null
  category?: string | null
  statusNote?: string | null
  attention?: string | null
  ttlMinutes?: number
}

/** The organisation fields of a session row, in OpenClaw's row shape. */
export interface OrganisationRowFields {
  archived: boolean
  archivedAt?: number
  pinned: boolean
  pinnedAt?: number
  unread: boolean
  lastReadAt?: number
  markedUnreadAt?: number
  icon?: string
  color?: SessionColor
  category?: string
  agentStatus?: SessionAgentStatus
}

const ORGANISATION_PATCH_KEYS = ['archived', 'pinned', 'unread', 'icon', 'color', 'category', 'statusNote', 'attention', 'ttlMinutes'] as const

export function hasOrganisationChange(patch: OrganisationPatch): boolean {
  return ORGANISATION_PATCH_KEYS.some((k) => patch[k] !== undefined)
}

export function normalizeSessionColor(value: string): SessionColor | undefined {
  const v = value.trim().toLowerCase()
  return SESSION_COLORS.find((c) => c === v)
}

let emojiPattern: RegExp | null | undefined
/** One RGI emoji sequence (flags, keycaps and ZWJ families included); null where the engine lacks the `v` flag. */
function singleEmoji(): RegExp | null {
  if (emojiPattern === undefined) {
    try {
      emojiPattern = new RegExp('^\\p{RGI_Emoji}$', 'v')
    } catch {
      emojiPattern = null
    }
  }
  return emojiPattern
}

/** A named glyph or exactly one emoji, trimmed; undefined for anything else. */
export function normalizeSessionIcon(value: string): string | undefined {
  const v = value.trim()
  if (!v) return undefined
  if ((SESSION_ICON_GLYPHS as readonly string[]).includes(v)) return v
  const re = singleEmoji()
  if (re) return re.test(v) ? v : undefined
  // fallback: one grapheme that is not plain ASCII
  if (v.length > 16 || /^[\x20-\x7e]+$/.test(v)) return undefined
  return [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(v)].length === 1 ? v : undefined
}

/** Whitespace collapsed, trimmed, cut to 120 UTF-16 units without splitting a surrogate pair. */
export function sanitizeStatusNote(value: string): string {
  let v = value.replace(/\s+/g, ' ').trim()
  if (v.length > STATUS_NOTE_MAX_CHARS) {
    let end = STATUS_NOTE_MAX_CHARS
    const last = v.charCodeAt(end - 1)
    if (last >= 0xd800 && last <= 0xdbff) end -= 1
    v = v.slice(0, end).trimEnd()
  }
  return v
}

export function isAttentionIcon(value: unknown): value is AttentionIcon {
  return typeof value === 'string' && (ATTENTION_ICONS as readonly string[]).includes(value)
}

/** The status note while it has not expired (a stored one may have). */
export function activeAgentStatus(status: SessionAgentStatus | undefined, now: number): SessionAgentStatus | undefined {
  if (!status || !status.note.trim() || !Number.isFinite(status.expiresAt) || status.expiresAt <= now) return undefined
  if (status.attention !== undefined && !isAttentionIcon(status.attention)) return undefined
  return status
}

/** A category as stored: trimmed, not empty, at most 512 chars (sessions.patch and sessions.create). */
export function normalizeSessionCategory(value: string): { ok: true; value: string } | { ok: false; reason: string } {
  const c = value.trim()
  if (!c) return { ok: false, reason: 'invalid category: empty' }
  if (c.length > CATEGORY_MAX_CHARS) return { ok: false, reason: `invalid category: too long (max ${CATEGORY_MAX_CHARS})` }
  return { ok: true, value: c }
}

/**
 * Applies the organisation fields of a patch to `org` (changed in place), in OpenClaw's order and with its
 * rules. Returns the reason when the patch is invalid; the caller then must not store `org`.
 */
export function applyOrganisationPatch(org: SessionOrganisation, patch: OrganisationPatch, now: number): string | undefined {
  if (patch.category !== undefined) {
    if (patch.category === null) delete org.category
    else {
      const c = normalizeSessionCategory(patch.category)
      if (!c.ok) return c.reason
      org.category = c.value // shared buckets: unlike labels, duplicates are expected
    }
  }
  if (patch.icon !== undefined) {
    if (patch.icon === null) delete org.icon
    else {
      const icon = normalizeSessionIcon(patch.icon)
      if (!icon) return `invalid icon: use one emoji or one of ${SESSION_ICON_GLYPHS.join('|')}`
      org.icon = icon
    }
  }
  if (patch.color !== undefined) {
    if (patch.color === null) delete org.color
    else {
      const color = normalizeSessionColor(patch.color)
      if (!color) return `invalid color (use ${SESSION_COLORS.join('|')})`
      org.color = color
    }
  }
  if (patch.statusNote !== undefined || patch.attention !== undefined || patch.ttlMinutes !== undefined) {
    const { statusNote, attention, ttlMinutes } = patch
    if (ttlMinutes !== undefined && (!Number.isInteger(ttlMinutes) || ttlMinutes < 1 || ttlMinutes > STATUS_NOTE_MAX_TTL_MINUTES)) {
      return `invalid ttlMinutes (use 1-${STATUS_NOTE_MAX_TTL_MINUTES})`
    }
    if (statusNote === null || attention === null) {
      // null on either clears the whole status (the note and its attention)
      if ((statusNote !== undefined && statusNote !== null) || (attention !== undefined && attention !== null)) {
        return 'cannot clear and set agent status in the same patch'
      }
      delete org.agentStatus
    } else {
      const current = activeAgentStatus(org.agentStatus, now)
      const note = statusNote === undefined ? current?.note : sanitizeStatusNote(statusNote)
      if (!note) return 'statusNote required before setting attention or ttlMinutes'
      if (attention !== undefined && !isAttentionIcon(attention)) return 'invalid attention icon'
      const icon = attention ?? current?.attention
      org.agentStatus = { note, expiresAt: now + (ttlMinutes ?? STATUS_NOTE_DEFAULT_TTL_MINUTES) * 60_000, ...(icon ? { attention: icon } : {}) }
    }
  }
  if (patch.archived !== undefined) {
    if (patch.archived) {
      // an archived session leaves the quick-access set in the same write
      org.archivedAt ??= now
      delete org.pinnedAt
    } else delete org.archivedAt
  }
  if (patch.pinned !== undefined) {
    if (patch.pinned) {
      if (org.archivedAt !== undefined) return 'cannot pin an archived session; restore it first'
      org.pinnedAt ??= now
    } else delete org.pinnedAt
  }
  if (patch.unread !== undefined) {
    if (patch.unread) {
      // strictly increasing, so an acknowledgement fenced on the previous mark never clears a newer one
      org.markedUnreadAt = Math.max(now, (org.markedUnreadAt ?? 0) + 1)
    } else {
      org.lastReadAt = now
      delete org.markedUnreadAt
      delete org.agentStatus // reading the session acknowledges its status note
    }
  }
  return undefined
}

/**
 * The row fields. Unread: explicitly marked, or a run completed after the session was last read (tracking
 * starts with the first read, so sessions nobody marked read never show as unread).
 */
export function organisationRowFields(org: SessionOrganisation, lastActivityAt: number | undefined, now: number): OrganisationRowFields {
  const unread = org.markedUnreadAt !== undefined || (org.lastReadAt !== undefined && (lastActivityAt ?? 0) > org.lastReadAt)
  const status = activeAgentStatus(org.agentStatus, now)
  return {
    archived: org.archivedAt !== undefined,
    ...(org.archivedAt !== undefined ? { archivedAt: org.archivedAt } : {}),
    pinned: org.pinnedAt !== undefined,
    ...(org.pinnedAt !== undefined ? { pinnedAt: org.pinnedAt } : {}),
    unread,
    ...(org.lastReadAt !== undefined ? { lastReadAt: org.lastReadAt } : {}),
    ...(org.markedUnreadAt !== undefined ? { markedUnreadAt: org.markedUnreadAt } : {}),
    ...(org.icon !== undefined ? { icon: org.icon } : {}),
    ...(org.color !== undefined ? { color: org.color } : {}),
    ...(org.category !== undefined ? { category: org.category } : {}),
    ...(status ? { agentStatus: { ...status } } : {}),
  }
}

/** The stored organisation fields of an entry (a copy). */
export function organisationOf(e: SessionOrganisation): SessionOrganisation {
  const org: SessionOrganisation = {}
  for (const k of ['archivedAt', 'pinnedAt', 'markedUnreadAt', 'lastReadAt', 'icon', 'color', 'category'] as const) {
    if (e[k] !== undefined) (org as Record<string, unknown>)[k] = e[k]
  }
  if (e.agentStatus) org.agentStatus = { ...e.agentStatus }
  return org
}

// the sidebar's order lives apart: the renderer's first paint needs it without this module's patch logic
export { compareForSidebar, sessionActivityAt } from './sidebar-order'
