// Skills snapshot: every `<workspace>/skills/*/SKILL.md` with a name + description in its frontmatter.
// The fingerprint hashes the files' contents, so a session keeps its snapshot (and its prompt stays
// byte-identical) until a skill file actually changes.
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import type { SkillsSnapshot } from '../contracts'
import { parseFrontmatter } from './frontmatter'
import { knownAbsent, noteIfAbsent, readTextFile } from './read-cache'

export const SKILLS_DIR = 'skills'
export const SKILL_FILE = 'SKILL.md'
/** description cap in the prompt (chars) — a skill list is an index, not the skill itself */
const MAX_DESCRIPTION = 500
const MAX_SKILLS = 200

export interface SkillsLoadResult {
  snapshot: SkillsSnapshot
  /** true when `previous` was returned unchanged */
  reused: boolean
  /** skill files that were skipped, with why */
  warnings: string[]
}

interface SkillFile {
  dir: string
  file: string
  content: string
}

function readSkillFiles(workspaceDir: string, workspaceStat?: fs.Stats, warnings?: string[]): SkillFile[] {
  // the usual case: no skills folder (known from the workspace's own stat, or one stat)
  if (workspaceStat && knownAbsent(workspaceDir, workspaceStat, SKILLS_DIR)) return []
  const root = path.join(workspaceDir, SKILLS_DIR)
  let dirs: string[]
  try {
    const st = fs.statSync(root, { throwIfNoEntry: false })
    if (!st && workspaceStat) noteIfAbsent(workspaceDir, workspaceStat, SKILLS_DIR)
    if (!st?.isDirectory()) return []
    const entries = fs.readdirSync(root, { withFileTypes: true })
    dirs = entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => e.name)
  } catch {
    return []
  }
  dirs.sort()
  const out: SkillFile[] = []
  for (const dir of dirs.slice(0, MAX_SKILLS)) {
    const file = path.join(root, dir, SKILL_FILE)
    // a skill linked in from outside the workspace is skipped: the read tool could not open its SKILL.md either
    const content = readTextFile(file, workspaceDir, () =>
      warnings?.push(`${path.relative(workspaceDir, file)}: a symlink leading outside the workspace; skipped`),
    )
    if (content !== undefined) out.push({ dir, file, content }) // a folder without SKILL.md is not a skill
  }
  return out
}

let emptyFingerprint: string | undefined

export function fingerprintOf(files: Array<{ dir: string; content: string }>): string {
  // most workspaces have no skills: that fingerprint is the same every run
  if (files.length === 0) return (emptyFingerprint ??= hashOf(files))
  return hashOf(files)
}

function hashOf(files: Array<{ dir: string; content: string }>): string {
  const h = createHash('sha256')
  for (const f of files) h.update(f.dir).update('\0').update(f.content).update('\0')
  return h.digest('hex').slice(0, 32)
}

export async function loadSkillsSnapshot(workspaceDir: string, previous?: SkillsSnapshot): Promise<SkillsLoadResult> {
  return loadSkillsSnapshotSync(workspaceDir, previous)
}

/** loadSkillsSnapshot; with `workspaceStat` (taken just before) a workspace known to have no skills folder costs no syscall. */
export function loadSkillsSnapshotSync(workspaceDir: string, previous?: SkillsSnapshot, workspaceStat?: fs.Stats): SkillsLoadResult {
  const warnings: string[] = []
  const files = readSkillFiles(workspaceDir, workspaceStat, warnings)
  const fingerprint = fingerprintOf(files)
  if (previous && previous.fingerprint === fingerprint) return { snapshot: previous, reused: true, warnings: [] }
  const skills: SkillsSnapshot['skills'] = []
  for (const f of files) {
    const fm = parseFrontmatter(f.content)
    const name = fm?.name?.trim()
    const description = fm?.description?.trim()
    if (!name || !description) {
      warnings.push(`${path.relative(workspaceDir, f.file)}: frontmatter needs "name" and "description"`)
      continue
    }
    skills.push({
      name,
      description: description.length > MAX_DESCRIPTION ? `${description.slice(0, MAX_DESCRIPTION - 1)}…` : description,
      path: path.relative(workspaceDir, f.file),
    })
  }
  return { snapshot: { fingerprint, skills }, reused: false, warnings }
}

/** The skills section of the system prompt (empty string when there are none). */
export function formatSkillsSection(snapshot: SkillsSnapshot): string {
  if (snapshot.skills.length === 0) return ''
  const lines = snapshot.skills.map((s) => `- ${s.name}: ${s.description} (file: ${s.path})`)
  return [
    '## Skills',
    'These skills are available in the workspace. When a task matches one, read its SKILL.md with the `read` tool first and follow it.',
    ...lines,
  ].join('\n')
}
