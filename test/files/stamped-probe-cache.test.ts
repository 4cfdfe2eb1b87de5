import {chmod, readdir, readFile, symlink, writeFile} from 'node:fs/promises'
import {join, relative} from 'node:path'
import {describe, expect, it} from 'vitest'
import {z} from 'zod'
import {stampedProbe} from '../../src/lib/files/stamped-probe-cache.js'
import {useScratchDir} from '../support/scratch-dir.js'

describe('stampedProbe', () => {
  const scratch = useScratchDir('engine-stamped-probe-')

  it('many writers at once leave a whole file and no temporary files', async () => {
    const dir = scratch()
    const file = join(dir, 'concurrent', 'facts.json')
    const executables = await Promise.all(
      Array.from({length: 24}, async (_, index) => {
        const path = join(dir, `tool-${index}`)
        await symlink('/usr/bin/ffmpeg', path)
        return path
      }),
    )
    // Of different lengths, so that two writes into one file would leave a torn tail.
    const factsOf = (index: number) => 'x'.repeat((24 - index) * 100)
    const facts = await Promise.all(executables.map((executablePath, index) => stampedProbe({file, executablePath, schema: z.string(), probe: async () => factsOf(index)})))
    expect(facts).toEqual(executables.map((_, index) => factsOf(index)))
    const written = z.record(z.string(), z.object({stamp: z.string(), facts: z.string()})).parse(JSON.parse(await readFile(file, 'utf8')))
    // Last writer wins: some entries may be lost, but every one kept is right.
    expect(Object.keys(written).length).toBeGreaterThan(0)
    for (const [path, entry] of Object.entries(written)) expect(entry.facts).toBe(factsOf(executables.indexOf(path)))
    expect(await readdir(join(dir, 'concurrent'))).toEqual(['facts.json'])
  })

  it('a relative path is kept under its absolute path; a bare command name is run every time', async () => {
    const dir = scratch()
    const file = join(dir, 'relative', 'facts.json')
    const executablePath = join(dir, 'relative-tool')
    await symlink('/usr/bin/ffmpeg', executablePath)
    let probes = 0
    const probe = async () => ++probes
    expect(await stampedProbe({file, executablePath: relative(process.cwd(), executablePath), schema: z.number(), probe})).toBe(1)
    expect(await stampedProbe({file, executablePath, schema: z.number(), probe})).toBe(1)
    expect(Object.keys(JSON.parse(await readFile(file, 'utf8')))).toEqual([executablePath])
    expect(await stampedProbe({file, executablePath: 'ffmpeg', schema: z.number(), probe})).toBe(2)
    expect(await stampedProbe({file, executablePath: 'ffmpeg', schema: z.number(), probe})).toBe(3)
  })

  it('probes again when a launcher script stays the same but the program it starts is replaced', async () => {
    const dir = scratch()
    const file = join(dir, 'launcher', 'facts.json')
    const program = join(dir, 'program')
    const launcher = join(dir, 'launcher.sh')
    const log = join(dir, 'launches.log')
    await writeFile(program, 'version 1')
    await chmod(program, 0o755)
    // A log the launcher appends to changes with every start: it must not count.
    await writeFile(launcher, `#!/bin/sh -e\necho "$*" >> ${log}\n${program} "$@" 2>/dev/null\n`)
    await chmod(launcher, 0o755)
    let probes = 0
    const probe = async () => ++probes
    const ask = () => stampedProbe({file, executablePath: launcher, schema: z.number(), probe})
    expect(await ask()).toBe(1)
    await writeFile(log, 'started\n', {flag: 'a'})
    expect(await ask()).toBe(1)
    await writeFile(program, 'version 2, a different size')
    expect(await ask()).toBe(2)
    expect(await ask()).toBe(2)
  })
})
