// `write`: create or overwrite a workspace file atomically (parent directories are created).
import Type from 'typebox'
import { atomicWriteConfined } from './atomic-write'
import { privateDirsOf, refuseGitInternals, resolveInWorkspace } from './paths'
import { formatBytes, textResult, throwIfAborted } from './result'
import { defineTool } from './spec'

export const WRITE_MAX_BYTES = 10 * 1024 * 1024

const params = Type.Object({
  path: Type.String({ description: 'File path, relative to the workspace' }),
  content: Type.String({ description: 'The complete new file content' }),
})

export const writeTool = defineTool(
  {
    name: 'write',
    label: 'Write file',
    description:
      'Create or overwrite a file in the workspace with the given content. Missing parent directories are created. ' +
      'Use edit for small changes to an existing file.',
    parameters: params,
    executionMode: 'sequential',
  },
  async (ctx, p, signal) => {
    throwIfAborted(signal, 'write')
    if (Buffer.byteLength(p.content, 'utf8') > WRITE_MAX_BYTES) {
      throw new Error(`content is too large (limit ${formatBytes(WRITE_MAX_BYTES)})`)
    }
    const rp = await resolveInWorkspace(ctx.workspaceDir, p.path, { allowMissing: true, privateDirs: privateDirsOf(ctx) })
    if (rp.rel === '.') throw new Error('path must name a file, not the workspace directory')
    refuseGitInternals(rp, p.path)
    // (start-up files: atomicWriteConfined refuses them first thing, before any folder is made — not checked twice)
    throwIfAborted(signal, 'write')
    const { bytes, created } = await atomicWriteConfined(rp, p.content)
    return textResult(`${created ? 'Created' : 'Overwrote'} ${rp.rel} (${bytes} bytes)`, { path: rp.rel, bytes, created })
  },
)
