import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {notifyFailureAction} from '../../packages/lambda/src/lib/lambda/actions/notify-failure-action.js'
import {markStopped} from '../../packages/lambda/src/lib/lambda/runtime/render-stop.js'
import {renderCancelKey} from '../../packages/lambda/src/lib/lambda/storage-keys.js'
import {sharedStack, type SharedStack} from '../support/shared-stack.js'

/**
 * A chunk can see a cancel's stop marker before the cancel has stopped the execution (under load
 * the cancelling CLI is slow): the workflow's failure path then leaves the cancel time to stop the
 * execution, so that it ends ABORTED as the cancel says rather than FAILED with the chunk's words.
 */
describe('the failure path of a render being cancelled', () => {
  let stack: SharedStack
  const ids: string[] = []
  beforeAll(async () => {
    stack = await sharedStack()
  })
  afterAll(async () => {
    for (const id of ids) await stack?.bucket.deleteKeys(await stack.bucket.listKeys(`renders/${id}/`))
  })

  const failurePath = (renderId: string, graceMs: number) => {
    ids.push(renderId)
    const event = {action: 'notifyFailure', renderId, bucketName: stack.bucket.bucketName, failure: {Error: 'Engine.CANCELLED', Cause: '{"code":"CANCELLED"}'}} as const
    return notifyFailureAction(event, {s3: stack.bucket.s3, memoryMb: 2048, startedAt: performance.now()}, graceMs)
  }

  it('returns only once the cancel has written its record (the execution is stopped by then), and announces nothing', async () => {
    const renderId = 'cancel-race-waits'
    await markStopped(stack.bucket, renderId, 'cancelled')
    let recorded = false
    setTimeout(() => {
      void stack.bucket.putJson(renderCancelKey(renderId), {renderId}).then(() => (recorded = true))
    }, 600)
    const outcome = await failurePath(renderId, 60_000)
    expect(recorded).toBe(true)
    expect(outcome).toMatchObject({notified: false, failure: {Error: 'Engine.CANCELLED'}})
  })

  it('a cancel that never finishes still lets the render end once the grace is over', async () => {
    const renderId = 'cancel-race-gives-up'
    await markStopped(stack.bucket, renderId, 'cancelled')
    const started = Date.now()
    const outcome = await failurePath(renderId, 700)
    expect(Date.now() - started).toBeGreaterThanOrEqual(700)
    expect(outcome).toMatchObject({notified: false})
  })
})
