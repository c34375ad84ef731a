// OpenClaw clients send `thinking` as free text ("max", "think harder", "on", "adaptive"…), so the wire
// takes any string and this maps it onto the levels pi-ai knows. Unknown words are the caller's mistake.
import { invalid } from '../api/errors'
import { THINKING_LEVELS, type ThinkingLevel } from '../../shared/methods'

const ALIASES: Record<string, ThinkingLevel> = {
  off: 'off',
  none: 'off',
  min: 'minimal',
  minimal: 'minimal',
  think: 'minimal',
  on: 'low',
  enable: 'low',
  enabled: 'low',
  low: 'low',
  thinkhard: 'low',
  mid: 'medium',
  med: 'medium',
  medium: 'medium',
  thinkharder: 'medium',
  harder: 'medium',
  high: 'high',
  ultra: 'high',
  ultrathink: 'high',
  thinkhardest: 'high',
  highest: 'high',
  xhigh: 'xhigh',
  extrahigh: 'xhigh',
  // pi-ai has nothing above xhigh
  max: 'xhigh',
}

/**
 * A thinking level from a request. `undefined` = no override (absent, or "adaptive"/"auto": the provider
 * decides, which is what the session/agent default already means here).
 */
export function normalizeThinking(raw: string | undefined): ThinkingLevel | undefined {
  if (raw === undefined) return undefined
  const key = raw.trim().toLowerCase().replace(/[\s_-]+/g, '')
  if (key === 'adaptive' || key === 'auto' || key === 'default') return undefined
  const level = ALIASES[key]
  if (!level) throw invalid(`invalid thinking level "${raw.slice(0, 40)}" (use ${THINKING_LEVELS.join('|')}, or adaptive)`)
  return level
}
