// Atomic, confined file write: temp file in the same directory (O_EXCL, never follows links), fsync,
// then rename over the target. rename() replaces a symlink itself rather than writing through it, so
// a link planted at the target after the check cannot redirect the write outside the workspace.
import { randomBytes } from 'node:crypto'
import { constants as C, promises as fsp } from 'node:fs'
import path from 'node:path'
import { fenceOf, isInside, mkdirsInside, openConfined, WorkspaceEscapeError, type ResolvedPath } from './paths'
import { refuseStartupWrite } from './startup-files'

export async function atomicWriteConfined(rp: ResolvedPath, data: string | Uint8Array): Promise<{ bytes: number; created: boolean }> {
  // files that run code later (~/.bashrc, ~/.config/autostart/, what ~/.gitconfig includes): never written
  refuseStartupWrite(rp.abs, rp.rel, rp.root)
  const dir = path.dirname(rp.abs)
  await mkdirsInside(rp.root, dir, rp.fences)

  const existing = await fsp.lstat(rp.abs).catch(() => undefined)
  if (existing?.isDirectory()) throw new Error(`"${rp.rel}" is a directory; give a file path`)
  if (existing?.isSymbolicLink()) {
    const real = await fsp.realpath(rp.abs).catch(() => '')
    if (!real || !isInside(rp.root, real) || fenceOf(rp.fences, real)) {
      throw new WorkspaceEscapeError(`Access denied: "${rp.rel}" became a symlink pointing outside the workspace`)
    }
  }

  const tmp: ResolvedPath = {
    ...rp,
    abs: path.join(dir, `.${path.basename(rp.abs)}.${randomBytes(6).toString('hex')}.tmp`),
  }
  tmp.rel = path.relative(rp.root, tmp.abs)
  const mode = existing && !existing.isSymbolicLink() ? existing.mode & 0o7777 : 0o666
  const fh = await openConfined(tmp, C.O_WRONLY | C.O_CREAT | C.O_EXCL, mode)
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data
  try {
    try {
      await fh.writeFile(buf)
      await fh.sync()
      if (existing) await fh.chmod(mode).catch(() => {})
    } finally {
      await fh.close()
    }
    // the folder, checked before, may have become a link into a start-up folder since: judged where it is now
    refuseStartupWrite(path.join(await fsp.realpath(dir), path.basename(rp.abs)), rp.rel, rp.root)
    await fsp.rename(tmp.abs, rp.abs)
  } catch (err) {
    await fsp.unlink(tmp.abs).catch(() => {})
    throw err
  }
  return { bytes: buf.length, created: !existing }
}
