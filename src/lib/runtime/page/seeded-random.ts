/** Stream used before the first seek (page scripts at load); frames use their own index. */
export const LOAD_STREAM = -1

/** Mixes two 32-bit values into one (murmur3's finaliser over a simple combine). */
function mix(seed: number, stream: number): number {
  let h = (seed ^ Math.imul(stream + 0x9e3779b9, 0x85ebca6b)) >>> 0
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

/**
 * sfc32: small, fast and well distributed. Reseeded from (render seed, frame index) at every seek,
 * so the random numbers a frame sees do not depend on which frames were rendered before it.
 */
export class SeededRandom {
  private a = 0
  private b = 0
  private c = 0
  private d = 0

  constructor(private readonly seed: number) {
    this.reseed(LOAD_STREAM)
  }

  reseed(stream: number): void {
    let s = mix(this.seed, stream)
    const next = () => {
      s = (s + 0x9e3779b9) >>> 0
      return mix(s, 0x1b873593)
    }
    this.a = next()
    this.b = next()
    this.c = next()
    this.d = next()
    for (let i = 0; i < 12; i++) this.nextUint32()
  }

  nextUint32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0
    this.d = (this.d + 1) >>> 0
    this.a = this.b ^ (this.b >>> 9)
    this.b = (this.c + (this.c << 3)) >>> 0
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0
    this.c = (this.c + t) >>> 0
    return t
  }

  /** Uniform in [0, 1), like Math.random. */
  nextFloat(): number {
    return this.nextUint32() / 4294967296
  }

  fill(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length; i += 4) {
      const value = this.nextUint32()
      for (let j = 0; j < 4 && i + j < bytes.length; j++) bytes[i + j] = (value >>> (j * 8)) & 0xff
    }
  }
}

const INTEGER_ARRAYS = ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'BigInt64Array', 'BigUint64Array']

/** Replaces `Math.random`, `crypto.getRandomValues` and `crypto.randomUUID` with `random`. */
export function installSeededRandom(win: Window & typeof globalThis, random: SeededRandom): void {
  win.Math.random = () => random.nextFloat()
  const crypto = win.crypto
  const getRandomValues = <T extends ArrayBufferView | null>(array: T): T => {
    if (!array || !ArrayBuffer.isView(array) || !INTEGER_ARRAYS.includes(Object.prototype.toString.call(array).slice(8, -1))) {
      throw new DOMException("Failed to execute 'getRandomValues' on 'Crypto': The provided ArrayBufferView is not an integer array type.", 'TypeMismatchError')
    }
    if (array.byteLength > 65536) {
      throw new DOMException(`Failed to execute 'getRandomValues' on 'Crypto': The ArrayBufferView's byte length (${array.byteLength}) exceeds the number of bytes of entropy available via this API (65536).`, 'QuotaExceededError')
    }
    random.fill(new Uint8Array(array.buffer, array.byteOffset, array.byteLength))
    return array
  }
  const randomUUID = (): `${string}-${string}-${string}-${string}-${string}` => {
    const bytes = new Uint8Array(16)
    random.fill(bytes)
    bytes[6] = (bytes[6] & 0x0f) | 0x40
    bytes[8] = (bytes[8] & 0x3f) | 0x80
    const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
  }
  Object.defineProperty(crypto, 'getRandomValues', {value: getRandomValues, writable: true, configurable: true})
  Object.defineProperty(crypto, 'randomUUID', {value: randomUUID, writable: true, configurable: true})
}
