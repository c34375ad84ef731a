// System prompt = base + skills + bootstrap context + per-run extra instructions. The report (section
// sizes, bootstrap files and their truncation, skills) is stored on the session for inspection.
import fs from 'node:fs'
import type { SkillsSnapshot, SystemPromptReport } from '../contracts'
import {
  capBootstrapFiles,
  formatBootstrapSection,
  loadBootstrapFilesSync,
  type BootstrapFile,
  type BootstrapHook,
} from './bootstrap'
import { formatSkillsSection, loadSkillsSnapshotSync } from './skills'

export interface BasePromptInput {
  agentId: string
  workspaceDir: string
  toolNames: string[]
  /** ISO date used in the prompt; day granularity keeps the prompt cache-friendly */
  date?: string
}

export function basePrompt(input: BasePromptInput): string {
  const date = input.date ?? new Date().toISOString().slice(0, 10)
  const lines = [
    `You are Loopdesk's assistant (agent "${input.agentId}"), running on the user's computer.`,
    `Your workspace directory is ${input.workspaceDir}. File tools are confined to it; paths are relative to it.`,
    input.toolNames.length > 0
      ? `Tools available: ${input.toolNames.join(', ')}. Use them when they help; say briefly what you did.`
      : 'No tools are available in this session.',
    'Be direct and accurate. If a tool fails, explain what failed instead of guessing.',
    'If a message needs no reply at all, answer with exactly NO_REPLY.',
    `Today is ${date}.`,
  ]
  return lines.join('\n')
}

export interface Section {
  name: string
  text: string
}

export function assemblePrompt(sections: Section[]): { prompt: string; sections: Array<{ name: string; chars: number }> } {
  const kept = sections.filter((s) => s.text.trim() !== '')
  return {
    prompt: kept.map((s) => s.text.trim()).join('\n\n'),
    sections: kept.map((s) => ({ name: s.name, chars: s.text.trim().length })),
  }
}

export interface BuildRunPromptInput {
  agentId: string
  sessionKey: string
  sessionId: string
  workspaceDir: string
  toolNames: string[]
  bootstrapMaxChars: number
  /** OpenClaw's lightweight bootstrap context: the workspace's bootstrap files are not read (a bootstrap hook still runs) */
  skipBootstrapFiles?: boolean
  previousSkills?: SkillsSnapshot
  extraSystemPrompt?: string
  /** summary of compacted history (rebuild from a compaction entry) */
  compactionSummary?: string
  /** `agent:bootstrap` internal hook */
  bootstrapHook?: BootstrapHook
  date?: string
}

export interface BuiltRunPrompt {
  systemPrompt: string
  report: SystemPromptReport
  skills: SkillsSnapshot
  skillsReused: boolean
  bootstrapFiles: BootstrapFile[]
  warnings: string[]
}

/** Resolves (creates) the workspace, loads skills and bootstrap files, runs the bootstrap hook, builds the prompt. */
export async function buildRunPrompt(input: BuildRunPromptInput): Promise<BuiltRunPrompt> {
  // one stat when the workspace exists (every run after the first) instead of a mkdir that fails with EEXIST;
  // the same stat tells which bootstrap files / skills folder are still absent (no syscall each)
  let wsStat = fs.statSync(input.workspaceDir, { throwIfNoEntry: false })
  if (!wsStat?.isDirectory()) {
    fs.mkdirSync(input.workspaceDir, { recursive: true })
    wsStat = undefined
  }
  const skillsResult = loadSkillsSnapshotSync(input.workspaceDir, input.previousSkills, wsStat)
  const warnings = [...skillsResult.warnings]
  let files = input.skipBootstrapFiles ? [] : loadBootstrapFilesSync(input.workspaceDir, input.bootstrapMaxChars, wsStat, warnings)
  if (input.bootstrapHook) {
    const event = {
      workspaceDir: input.workspaceDir,
      sessionKey: input.sessionKey,
      sessionId: input.sessionId,
      agentId: input.agentId,
      files: [...files],
    }
    try {
      await input.bootstrapHook(event)
      files = capBootstrapFiles(
        event.files.filter((f) => f && typeof f.name === 'string' && typeof f.content === 'string'),
        input.bootstrapMaxChars,
      )
    } catch (err) {
      warnings.push(`agent:bootstrap hook failed: ${(err as Error).message ?? String(err)}`)
    }
  }
  const { prompt, sections } = assemblePrompt([
    { name: 'base', text: basePrompt({ agentId: input.agentId, workspaceDir: input.workspaceDir, toolNames: input.toolNames, date: input.date }) },
    { name: 'skills', text: formatSkillsSection(skillsResult.snapshot) },
    { name: 'bootstrap', text: formatBootstrapSection(files) },
    {
      name: 'compaction',
      text: input.compactionSummary
        ? `## Earlier conversation (summary)\nOlder turns of this session were compacted. Summary:\n${input.compactionSummary}`
        : '',
    },
    { name: 'extra', text: input.extraSystemPrompt ? `## Additional instructions\n${input.extraSystemPrompt}` : '' },
  ])
  const report: SystemPromptReport = {
    builtAt: Date.now(),
    chars: prompt.length,
    sections,
    bootstrapFiles: files.map((f) => ({
      name: f.name,
      chars: f.originalChars,
      truncated: f.truncated,
      ...(f.missing ? { missing: true } : {}),
    })),
    skills: skillsResult.snapshot.skills.map((s) => s.name),
  }
  return { systemPrompt: prompt, report, skills: skillsResult.snapshot, skillsReused: skillsResult.reused, bootstrapFiles: files, warnings }
}
