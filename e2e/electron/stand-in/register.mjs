// node --import ./e2e/electron/stand-in/register.mjs …: resolves `electron` to the stand-in module.
import { register } from 'node:module'

register(
  'data:text/javascript,' +
    encodeURIComponent(`
      const target = ${JSON.stringify(new URL('./electron.mjs', import.meta.url).href)}
      export async function resolve(specifier, context, next) {
        if (specifier === 'electron') return { url: target, shortCircuit: true, format: 'module' }
        return next(specifier, context)
      }
    `),
)
