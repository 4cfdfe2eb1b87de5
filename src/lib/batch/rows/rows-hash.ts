import {createHash} from 'node:crypto'

/**
 * sha256 of the rows as written, taken as one JSON array (the manifest's `rowsSha256`): a resume and
 * a rebuilt result sheet check against it that the rows file is the one the batch ran.
 */
export class RowsHash {
  private readonly hash = createHash('sha256').update('[')
  private first = true

  add(written: Record<string, unknown>): void {
    this.hash.update(this.first ? '' : ',').update(JSON.stringify(written))
    this.first = false
  }

  digest(): string {
    return this.hash.update(']').digest('hex')
  }
}
