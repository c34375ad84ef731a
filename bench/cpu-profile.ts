// A CPU profile of this process's main thread through the inspector, for BENCH_CPU_PROFILE=<file>: benches start it
// around the stretch they measure and write the profile where the variable says (open it in Chrome DevTools).
import fs from 'node:fs'
import inspector from 'node:inspector'

/** Starts the profiler; the returned function stops it and returns the profile. */
export async function startProfile(): Promise<() => Promise<object>> {
  const session = new inspector.Session()
  session.connect()
  const post = (method: string, params?: object) =>
    new Promise<any>((resolve, reject) =>
      session.post(method, params, (err, r) => (err ? reject(err) : resolve(r))),
    )
  await post('Profiler.enable')
  await post('Profiler.setSamplingInterval', {
    interval: Number(process.env.BENCH_CPU_PROFILE_INTERVAL_US ?? 100),
  })
  await post('Profiler.start')
  return async () => {
    const { profile } = await post('Profiler.stop')
    session.disconnect()
    return profile
  }
}

/** With BENCH_CPU_PROFILE set, profiles `work` and writes the profile there; else just runs it. */
export async function profiled<T>(work: () => Promise<T>): Promise<T> {
  const file = process.env.BENCH_CPU_PROFILE
  if (!file) return work()
  const stop = await startProfile()
  const result = await work()
  fs.writeFileSync(file, JSON.stringify(await stop()))
  return result
}
