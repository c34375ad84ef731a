import { renameSync, statSync, symlinkSync, utimesSync } from 'node:fs'
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { buildRunPrompt, loadSkillsSnapshot, parseFrontmatter, truncateMiddle } from './index'
import { knownAbsent } from './read-cache'

let ws: string
beforeEach(async () => {
  ws = await mkdtemp(path.join(os.tmpdir(), 'ld-prompt-'))
})
afterEach(() => rm(ws, { recursive: true, force: true }))

async function skill(dir: string, body: string) {
  await mkdir(path.join(ws, 'skills', dir), { recursive: true })
  await writeFile(path.join(ws, 'skills', dir, 'SKILL.md'), body)
}

const base = () => ({ agentId: 'main', sessionKey: 'agent:main:main', sessionId: 's1', workspaceDir: ws, toolNames: ['read', 'exec'], bootstrapMaxChars: 200 })

describe('frontmatter', () => {
  it('reads plain, quoted and folded values', () => {
    expect(parseFrontmatter('---\nname: pdf\ndescription: "Read \\"PDFs\\""\n---\nbody')).toEqual({ name: 'pdf', description: 'Read "PDFs"' })
    expect(parseFrontmatter('---\nname: x\ndescription: >\n  one\n  two\n---\n')).toEqual({ name: 'x', description: 'one two' })
    expect(parseFrontmatter('no frontmatter')).toBeUndefined()
    expect(parseFrontmatter('---\nname: x\n')).toBeUndefined()
  })

  it('drops a trailing # comment, and reads a hostile line in linear time', async () => {
    expect(parseFrontmatter('---\nname: x   # the id\ndescription: C# and F#\t#  note\n---\n')).toEqual({ name: 'x', description: 'C# and F#' })
    // 200,000 spaces inside a value: /\s+#.*$/ took ~10 s at 80,000 (quadratic), on every run's prompt build
    await skill('slow', '---\nname: slow\ndescription: a' + ' '.repeat(200_000) + 'b\n---\n')
    const t0 = performance.now()
    const r = await loadSkillsSnapshot(ws)
    expect(performance.now() - t0).toBeLessThan(2000)
    expect(r.snapshot.skills.map((s) => s.name)).toEqual(['slow'])
  }, 120_000)
})

describe('skills snapshot', () => {
  it('loads name+description, skips invalid ones with a warning, reuses the snapshot until a file changes', async () => {
    await skill('b-pdf', '---\nname: pdf\ndescription: Work with PDF files\n---\n# PDF')
    await skill('a-git', '---\nname: git\ndescription: Git helpers\n---\n')
    await skill('broken', '# no frontmatter')
    await mkdir(path.join(ws, 'skills', 'empty'), { recursive: true })
    const first = await loadSkillsSnapshot(ws)
    expect(first.reused).toBe(false)
    expect(first.snapshot.skills.map((s) => s.name)).toEqual(['git', 'pdf'])
    expect(first.snapshot.skills[0].path).toBe(path.join('skills', 'a-git', 'SKILL.md'))
    expect(first.warnings[0]).toMatch(/broken.*name.*description/)
    const again = await loadSkillsSnapshot(ws, first.snapshot)
    expect(again.reused).toBe(true)
    expect(again.snapshot).toBe(first.snapshot)
    await skill('a-git', '---\nname: git\ndescription: Git helpers v2\n---\n')
    const changed = await loadSkillsSnapshot(ws, first.snapshot)
    expect(changed.reused).toBe(false)
    expect(changed.snapshot.fingerprint).not.toBe(first.snapshot.fingerprint)
    expect(changed.snapshot.skills[0].description).toBe('Git helpers v2')
  })

  it('no skills dir gives an empty snapshot', async () => {
    const r = await loadSkillsSnapshot(ws)
    expect(r.snapshot.skills).toEqual([])
  })
})

describe('system prompt', () => {
  it('assembles base + skills + bootstrap + extra and reports sizes and truncation', async () => {
    await skill('pdf', '---\nname: pdf\ndescription: PDFs\n---\n')
    await writeFile(path.join(ws, 'AGENTS.md'), 'Be kind.')
    await writeFile(path.join(ws, 'MEMORY.md'), 'x'.repeat(1000))
    const r = await buildRunPrompt({ ...base(), extraSystemPrompt: 'Answer in French.' })
    expect(r.systemPrompt).toContain(ws)
    expect(r.systemPrompt).toContain('- pdf: PDFs')
    expect(r.systemPrompt).toContain('### AGENTS.md\nBe kind.')
    expect(r.systemPrompt).toContain('### MEMORY.md (truncated)')
    expect(r.systemPrompt).toMatch(/Additional instructions\nAnswer in French\.$/)
    expect(r.report.chars).toBe(r.systemPrompt.length)
    expect(r.report.sections.map((s) => s.name)).toEqual(['base', 'skills', 'bootstrap', 'extra'])
    const mem = r.report.bootstrapFiles.find((f) => f.name === 'MEMORY.md')!
    expect(mem).toMatchObject({ chars: 1000, truncated: true })
    expect(r.report.bootstrapFiles.find((f) => f.name === 'SOUL.md')).toMatchObject({ missing: true })
    expect(r.report.skills).toEqual(['pdf'])
    expect(r.systemPrompt.length).toBeLessThan(2000)
  })

  it('creates the workspace and lets the agent:bootstrap hook add and remove files', async () => {
    const fresh = path.join(ws, 'nested', 'workspace')
    await writeFile(path.join(ws, 'x'), '')
    const r = await buildRunPrompt({
      ...base(),
      workspaceDir: fresh,
      bootstrapHook: (ev) => {
        expect(ev.sessionKey).toBe('agent:main:main')
        ev.files = ev.files.filter((f) => f.name !== 'USER.md')
        ev.files.push({ name: 'EXTRA.md', path: '', content: 'y'.repeat(500), originalChars: 500, truncated: false, missing: false })
      },
    })
    expect(r.systemPrompt).toContain('### EXTRA.md (truncated)')
    expect(r.report.bootstrapFiles.map((f) => f.name)).not.toContain('USER.md')
    expect(r.report.bootstrapFiles.find((f) => f.name === 'EXTRA.md')).toMatchObject({ truncated: true })
  })

  it('a failing bootstrap hook is reported, the run prompt still builds', async () => {
    const r = await buildRunPrompt({ ...base(), bootstrapHook: () => { throw new Error('nope') } })
    expect(r.warnings.join()).toMatch(/agent:bootstrap hook failed: nope/)
    expect(r.systemPrompt).toContain('Loopdesk')
  })

  it('truncateMiddle keeps head and tail within the cap', () => {
    const t = truncateMiddle('a'.repeat(300) + 'END', 120)
    expect(t.truncated).toBe(true)
    expect(t.text.length).toBeLessThanOrEqual(120)
    expect(t.text.endsWith('END')).toBe(true)
  })
})

describe('files known to be absent (no stat per run while the workspace folder is unchanged)', () => {
  /** the workspace folder last changed long enough ago for "absent" verdicts to be kept */
  const settle = () => utimesSync(ws, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000))

  it('a bootstrap file or skills folder created later is picked up by the next build', async () => {
    settle()
    const first = await buildRunPrompt(base())
    expect(first.report.bootstrapFiles.every((f) => f.missing)).toBe(true)
    expect(knownAbsent(ws, statSync(ws), 'AGENTS.md')).toBe(true)
    expect(knownAbsent(ws, statSync(ws), 'skills')).toBe(true)
    expect((await buildRunPrompt(base())).report.bootstrapFiles.every((f) => f.missing)).toBe(true)
    await writeFile(path.join(ws, 'AGENTS.md'), 'New rules.')
    await skill('pdf', '---\nname: pdf\ndescription: PDFs\n---\n')
    const next = await buildRunPrompt(base())
    expect(next.systemPrompt).toContain('### AGENTS.md\nNew rules.')
    expect(next.systemPrompt).toContain('- pdf: PDFs')
  })

  it('a file renamed into the workspace is picked up too', async () => {
    const outside = await mkdtemp(path.join(os.tmpdir(), 'ld-prompt-out-'))
    try {
      await writeFile(path.join(outside, 'SOUL.md'), 'Calm.')
      settle()
      await buildRunPrompt(base())
      renameSync(path.join(outside, 'SOUL.md'), path.join(ws, 'SOUL.md'))
      expect((await buildRunPrompt(base())).systemPrompt).toContain('### SOUL.md\nCalm.')
    } finally {
      await rm(outside, { recursive: true, force: true })
    }
  })

  it('a dangling symlink is looked at every time: its target can appear without the workspace changing', async () => {
    // the target's folder exists (the workspace's mtime settles); the file appears later
    await mkdir(path.join(ws, 'notes'))
    const target = path.join(ws, 'notes', 'USER.md')
    symlinkSync(target, path.join(ws, 'USER.md'))
    settle()
    expect((await buildRunPrompt(base())).report.bootstrapFiles.find((f) => f.name === 'USER.md')).toMatchObject({ missing: true })
    expect(knownAbsent(ws, statSync(ws), 'USER.md')).toBe(false)
    await writeFile(target, 'The user likes tea.')
    expect((await buildRunPrompt(base())).systemPrompt).toContain('### USER.md\nThe user likes tea.')
  })

  it('bootstrap files and skills linked in from outside the workspace are left out, with a warning (the read tool refuses them too)', async () => {
    const outside = await mkdtemp(path.join(os.tmpdir(), 'ld-prompt-out-'))
    try {
      await writeFile(path.join(outside, 'credentials'), 'aws_secret_access_key = SECRET123')
      await mkdir(path.join(outside, 'skill'))
      await writeFile(path.join(outside, 'skill', 'SKILL.md'), '---\nname: outside\ndescription: from elsewhere\n---\n')
      symlinkSync(path.join(outside, 'credentials'), path.join(ws, 'AGENTS.md'))
      await mkdir(path.join(ws, 'skills', 'linked'), { recursive: true })
      symlinkSync(path.join(outside, 'skill', 'SKILL.md'), path.join(ws, 'skills', 'linked', 'SKILL.md'))
      // links that stay inside the workspace keep working
      await mkdir(path.join(ws, 'docs'))
      await writeFile(path.join(ws, 'docs', 'soul.md'), 'Calm and kind.')
      symlinkSync(path.join('docs', 'soul.md'), path.join(ws, 'SOUL.md'))
      await skill('inside', '---\nname: inside\ndescription: from here\n---\n')
      const built = await buildRunPrompt(base())
      expect(built.systemPrompt).not.toContain('SECRET123')
      expect(built.systemPrompt).toContain('### SOUL.md\nCalm and kind.')
      expect(built.skills.skills.map((s) => s.name)).toEqual(['inside'])
      expect(built.warnings).toEqual([
        `${path.join('skills', 'linked', 'SKILL.md')}: a symlink leading outside the workspace; skipped`,
        'AGENTS.md: a symlink leading outside the workspace; left out of the prompt',
      ])
    } finally {
      await rm(outside, { recursive: true, force: true })
    }
  })

  it('a binary file under a context-file name is left out, with a warning; a text one beside it stays', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52])
    await writeFile(path.join(ws, 'TOOLS.md'), Buffer.concat([png, Buffer.from('IHDR-PAYLOAD')]))
    await writeFile(path.join(ws, 'USER.md'), 'Prefers short answers.')
    const built = await buildRunPrompt(base())
    expect(built.systemPrompt).not.toContain('### TOOLS.md')
    expect(built.systemPrompt).not.toContain('IHDR-PAYLOAD')
    expect(built.systemPrompt).toContain('### USER.md\nPrefers short answers.')
    expect(built.warnings).toEqual(['TOOLS.md: looks like a binary file (NUL bytes); left out of the prompt'])
  })

  it('nothing is remembered while the workspace folder changed just now (a create in the same clock tick would not show)', async () => {
    await writeFile(path.join(ws, 'other.txt'), 'x') // folder mtime = now
    await buildRunPrompt(base())
    expect(knownAbsent(ws, statSync(ws), 'AGENTS.md')).toBe(false)
  })
})
