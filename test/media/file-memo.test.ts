import {utimes, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {FileMemo} from '../../src/lib/media/file-memo.js'
import {useScratchDir} from '../support/scratch-dir.js'

describe('FileMemo: one probe and one hash per unchanged source file', () => {
  const scratch = useScratchDir('engine-file-memo-')

  it('computes once for the same file, again once it changes', async () => {
    const file = join(scratch(), 'a.mp4')
    await writeFile(file, 'first')
    const memo = new FileMemo<string>()
    let runs = 0
    const compute = async () => `value ${++runs}`
    const [a, b] = await Promise.all([memo.get(file, compute), memo.get(file, compute)])
    expect([a, b, await memo.get(file, compute)]).toEqual(['value 1', 'value 1', 'value 1'])
    await writeFile(file, 'second, longer')
    expect(await memo.get(file, compute)).toBe('value 2')
    // Same size, other modification time: changed.
    await writeFile(file, 'second, LONGER')
    await utimes(file, new Date(2001, 0, 1), new Date(2001, 0, 1))
    expect(await memo.get(file, compute)).toBe('value 3')
  })

  it('keeps no failure, and leaves a missing file to the computation each time', async () => {
    const file = join(scratch(), 'b.mp4')
    await writeFile(file, 'x')
    const memo = new FileMemo<string>()
    let attempts = 0
    const flaky = async () => {
      attempts++
      if (attempts === 1) throw new Error('ffprobe failed')
      return 'ok'
    }
    await expect(memo.get(file, flaky)).rejects.toThrow('ffprobe failed')
    expect(await memo.get(file, flaky)).toBe('ok')
    let missing = 0
    const count = async () => String(++missing)
    await memo.get(join(scratch(), 'absent.mp4'), count)
    await memo.get(join(scratch(), 'absent.mp4'), count)
    expect(missing).toBe(2)
  })

  it('holds at most `limit` files, dropping the oldest', async () => {
    const memo = new FileMemo<number>(2)
    const files = await Promise.all(['1', '2', '3'].map(async (name) => {
      const file = join(scratch(), `${name}.wav`)
      await writeFile(file, name)
      return file
    }))
    let runs = 0
    const compute = async () => ++runs
    for (const file of files) await memo.get(file, compute)
    expect(runs).toBe(3)
    await memo.get(files[2], compute)
    expect(runs).toBe(3)
    await memo.get(files[0], compute)
    expect(runs).toBe(4)
  })
})
