import {createReadStream} from 'node:fs'
import {open} from 'node:fs/promises'
import {createBrotliDecompress} from 'node:zlib'
import type {FunctionArch} from 'html-video-engine/internal/lib/browser/function-chromium.js'

/** ELF e_machine values of the two architectures Lambda runs. */
const MACHINES: Readonly<Record<number, FunctionArch>> = {0x3e: 'x86_64', 0xb7: 'arm64'}

/** The architecture an ELF header names ('other' for any other machine), or undefined when it is no 64-bit little-endian ELF file. */
export function elfArch(header: Buffer): FunctionArch | 'other' | undefined {
  if (header.length < 20 || header.readUInt32BE(0) !== 0x7f454c46 || header[4] !== 2 || header[5] !== 1) return undefined
  return MACHINES[header.readUInt16LE(18)] ?? 'other'
}

export interface ElfInfo {
  arch: FunctionArch | 'other'
  /** It names a program interpreter (ld.so): it needs the shared libraries of the machine it was built for. */
  dynamic: boolean
}

const PT_INTERP = 3

/** The architecture of an executable on disk and whether it is dynamically linked; undefined when it is no 64-bit little-endian ELF file. */
export async function fileElfInfo(path: string): Promise<ElfInfo | undefined> {
  const handle = await open(path, 'r')
  try {
    const read = async (position: number, length: number) => (await handle.read(Buffer.alloc(length), 0, length, position)).buffer
    const header = await read(0, 64)
    const arch = elfArch(header)
    if (!arch) return undefined
    const offset = Number(header.readBigUInt64LE(32))
    const size = header.readUInt16LE(54)
    const count = header.readUInt16LE(56)
    let dynamic = false
    for (let index = 0; index < count && !dynamic; index++) dynamic = (await read(offset + index * size, 4)).readUInt32LE(0) === PT_INTERP
    return {arch, dynamic}
  } finally {
    await handle.close()
  }
}

/** The architecture of the executable inside a brotli file (sparticuz's chromium.br), from its first bytes only. */
export async function brotliElfArch(path: string): Promise<FunctionArch | 'other' | undefined> {
  const stream = createReadStream(path).pipe(createBrotliDecompress())
  let header = Buffer.alloc(0)
  try {
    for await (const chunk of stream) {
      header = Buffer.concat([header, chunk as Buffer])
      if (header.length >= 20) break
    }
  } catch {
    return undefined
  } finally {
    stream.destroy()
  }
  return elfArch(header)
}
