import {copyFile, rename, rm} from 'node:fs/promises'

/** Renames `from` to `to`; across filesystems (a tmpfs work directory) copies, then drops the original. */
export async function moveFile(from: string, to: string): Promise<void> {
  try {
    await rename(from, to)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error
    await copyFile(from, to)
    await rm(from, {force: true})
  }
}
