import {createReadStream, createWriteStream, type WriteStream} from 'node:fs'
import {rm} from 'node:fs/promises'
import {join} from 'node:path'
import {once} from 'node:events'
import type {BatchJob} from './preflight.js'
import {readLines} from './rows/read-lines.js'
import {makeTempDirectory} from '../files/temp-directory.js'

/**
 * The checked rows of a running batch, one JSON line each, in a temporary file: the batch reads its
 * file once (standard input can only be read once) and then streams jobs from here, so no list of
 * rows is ever held in memory.
 */
export class JobSpool {
  private constructor(
    private readonly directory: string,
    private readonly path: string,
    private readonly writer: WriteStream,
  ) {}

  static async create(): Promise<JobSpool> {
    const directory = await makeTempDirectory('batch')
    const path = join(directory, 'jobs.jsonl')
    return new JobSpool(directory, path, createWriteStream(path))
  }

  async append(job: BatchJob): Promise<void> {
    if (!this.writer.write(JSON.stringify(job) + '\n')) await once(this.writer, 'drain')
  }

  /** Ends writing; jobs() may be called from then on, as often as needed. */
  async seal(): Promise<void> {
    this.writer.end()
    await once(this.writer, 'finish')
  }

  async *jobs(): AsyncGenerator<BatchJob> {
    for await (const line of readLines(createReadStream(this.path))) yield JSON.parse(line) as BatchJob
  }

  async remove(): Promise<void> {
    // A batch refused halfway through its rows drops what was still being written.
    this.writer.on('error', () => {})
    this.writer.destroy()
    await rm(this.directory, {recursive: true, force: true})
  }
}
