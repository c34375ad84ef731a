import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { descendantsOf, EXEC_ID_VAR, killTree, parentLinks, spawnShell } from './process-tree'

const linux = process.platform === 'linux' && fs.existsSync('/proc/self/environ') && fs.existsSync('/usr/bin/setsid')

/** alive = exists and is not a zombie waiting for a parent that may never reap it */
function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}

async function until(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (cond()) return true
    await new Promise((r) => setTimeout(r, 20))
  }
  return cond()
}

const leftovers: number[] = []
afterEach(() => {
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // gone
    }
  }
})

describe.skipIf(!linux)('killTree', () => {
  it('also ends a process that left the group with setsid (it keeps the command’s LOOPDESK_EXEC_ID)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-tree-'))
    const pidFile = path.join(dir, 'escaped.pid')
    // the escaped process writes its pid, then sleeps in a session of its own
    const child = spawnShell(`setsid sh -c 'echo $$ > "${pidFile}"; exec sleep 30' </dev/null >/dev/null 2>&1 & sleep 30`, dir, { PATH: process.env.PATH })
    const exited = new Promise((r) => child.once('exit', r))
    expect(await until(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim() !== '', 5000)).toBe(true)
    const escaped = Number(fs.readFileSync(pidFile, 'utf8'))
    leftovers.push(escaped)
    expect(alive(escaped)).toBe(true)
    // not in the shell's process group: kill(-pgid) alone would miss it
    expect(fs.readFileSync(`/proc/${escaped}/stat`, 'utf8').split(') ')[1].split(' ')[2]).not.toBe(String(child.pid))
    expect(fs.readFileSync(`/proc/${escaped}/environ`, 'latin1')).toContain(`${EXEC_ID_VAR}=`)

    killTree(child)
    await exited
    expect(await until(() => !alive(escaped), 3000)).toBe(true)
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it('also ends a process that cleared its environment and left the group (`env -i setsid`): found by its parent link', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-tree-'))
    const pidFile = path.join(dir, 'escaped.pid')
    // env -i drops LOOPDESK_EXEC_ID, setsid leaves the process group: neither older kill reaches it
    const child = spawnShell(`env -i /usr/bin/setsid /bin/sh -c 'echo $$ > "${pidFile}"; exec sleep 1000' </dev/null >/dev/null 2>&1`, dir, { PATH: process.env.PATH })
    const exited = new Promise((r) => child.once('exit', r))
    expect(await until(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim() !== '', 5000)).toBe(true)
    const escaped = Number(fs.readFileSync(pidFile, 'utf8'))
    leftovers.push(escaped)
    expect(await until(() => fs.readFileSync(`/proc/${escaped}/cmdline`, 'latin1').startsWith('sleep'), 3000)).toBe(true)
    expect(fs.readFileSync(`/proc/${escaped}/environ`, 'latin1')).not.toContain(`${EXEC_ID_VAR}=`)
    expect(fs.readFileSync(`/proc/${escaped}/stat`, 'utf8').split(') ')[1].split(' ')[2]).not.toBe(String(child.pid))

    killTree(child)
    await exited
    expect(await until(() => !alive(escaped), 3000)).toBe(true)
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it('leaves processes of other commands alone', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-tree-'))
    const a = spawnShell('sleep 30', dir, { PATH: process.env.PATH })
    const b = spawnShell('sleep 30', dir, { PATH: process.env.PATH })
    leftovers.push(a.pid!, b.pid!)
    const aExited = new Promise((r) => a.once('exit', r))
    expect(await until(() => alive(a.pid!) && alive(b.pid!), 3000)).toBe(true)
    killTree(a)
    await aExited
    await new Promise((r) => setTimeout(r, 100))
    expect(alive(b.pid!)).toBe(true)
    killTree(b)
    fs.rmSync(dir, { recursive: true, force: true })
  })
})

describe('descendantsOf', () => {
  it('walks parent links down from the root, not up or sideways', () => {
    const links = new Map([
      [10, 1],
      [11, 10],
      [12, 11],
      [13, 11],
      [20, 1],
      [21, 20],
    ])
    expect(descendantsOf(10, links).sort((a, b) => a - b)).toEqual([10, 11, 12, 13])
    expect(descendantsOf(99, links)).toEqual([99])
  })

  it.skipIf(!linux)('reads parent links from /proc (a comm with spaces and parentheses does not shift the fields)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-tree-'))
    const odd = path.join(dir, 'a b) (c')
    fs.symlinkSync(fs.realpathSync('/bin/sleep'), odd)
    const child = spawnShell(`"${odd}" 30 & echo $! > "${dir}/pid"; wait`, dir, { PATH: process.env.PATH })
    expect(await until(() => fs.existsSync(`${dir}/pid`) && fs.readFileSync(`${dir}/pid`, 'utf8').trim() !== '', 3000)).toBe(true)
    const sleeper = Number(fs.readFileSync(`${dir}/pid`, 'utf8'))
    leftovers.push(sleeper)
    expect(await until(() => parentLinks().get(sleeper) === child.pid, 3000)).toBe(true)
    expect(descendantsOf(child.pid!, parentLinks())).toContain(sleeper)
    killTree(child)
    fs.rmSync(dir, { recursive: true, force: true })
  })
})
