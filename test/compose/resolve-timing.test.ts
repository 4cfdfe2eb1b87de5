import {describe, expect, it} from 'vitest'
import {resolveTiming} from '../../src/lib/compose/resolve-timing.js'

describe('resolveTiming', () => {
  it('uses seconds as absolute starts at the top level', () => {
    const {timings, findings} = resolveTiming([
      {key: 'a', start: 0, duration: 2},
      {key: 'b', start: 1.5, duration: 1},
      {key: 'c', start: 3},
    ])
    expect(timings).toEqual({a: {start: 0, end: 2}, b: {start: 1.5, end: 2.5}, c: {start: 3}})
    expect(findings).toEqual([])
  })

  it('starts a clip where the clip it names ends, through chains, in any order', () => {
    const {timings} = resolveTiming([
      {key: 'c', id: 'outro', start: {after: 'main'}, duration: 1},
      {key: 'b', id: 'main', start: {after: 'intro'}, duration: 3},
      {key: 'a', id: 'intro', start: 0.5, duration: 2},
    ])
    expect(timings.a).toEqual({start: 0.5, end: 2.5})
    expect(timings.b).toEqual({start: 2.5, end: 5.5})
    expect(timings.c).toEqual({start: 5.5, end: 6.5})
  })

  it('reports an unknown reference and leaves only that start undefined', () => {
    const {timings, findings} = resolveTiming([
      {key: 'a', id: 'intro', start: 0, duration: 1},
      {key: 'b', start: {after: 'intr'}, duration: 1},
    ])
    expect(findings).toEqual([{kind: 'unknown-reference', key: 'b', reference: 'intr'}])
    expect(timings.a).toEqual({start: 0, end: 1})
    expect(timings.b).toEqual({})
  })

  it('reports a cycle once, with the chain of ids, and does not throw', () => {
    const {timings, findings} = resolveTiming([
      {key: 'a', id: 'x', start: {after: 'z'}, duration: 1},
      {key: 'b', id: 'y', start: {after: 'x'}, duration: 1},
      {key: 'c', id: 'z', start: {after: 'y'}, duration: 1},
      {key: 'd', id: 'after-cycle', start: {after: 'z'}, duration: 1},
      {key: 'e', id: 'self', start: {after: 'self'}, duration: 1},
    ])
    expect(findings).toEqual([
      {kind: 'cycle', key: 'a', chain: ['x', 'z', 'y', 'x']},
      {kind: 'cycle', key: 'e', chain: ['self', 'self']},
    ])
    expect(timings.a).toEqual({})
    expect(timings.d).toEqual({})
  })

  it('makes clips inside a host relative to the host start, with ids scoped to the host', () => {
    const {timings, findings} = resolveTiming([
      {key: 'h1', id: 'card', start: 2, duration: 4},
      {key: 'h1-title', id: 'title', start: 0.5, duration: 1, parentKey: 'h1'},
      {key: 'h1-body', start: {after: 'title'}, duration: 1, parentKey: 'h1'},
      {key: 'h2', start: {after: 'card'}, duration: 2},
      {key: 'h2-title', id: 'title', start: 0, duration: 1, parentKey: 'h2'},
      {key: 'h2-outside', start: {after: 'card'}, parentKey: 'h2'},
    ])
    expect(timings['h1-title']).toEqual({start: 2.5, end: 3.5})
    expect(timings['h1-body']).toEqual({start: 3.5, end: 4.5})
    expect(timings.h2).toEqual({start: 6, end: 8})
    expect(timings['h2-title']).toEqual({start: 6, end: 7})
    expect(findings).toEqual([{kind: 'unknown-reference', key: 'h2-outside', reference: 'card'}])
  })

  it('reports a reference to a clip whose duration is not known yet', () => {
    const {timings, findings} = resolveTiming([
      {key: 'v', id: 'video', start: 0},
      {key: 'b', start: {after: 'video'}, duration: 1},
    ])
    expect(findings).toEqual([{kind: 'missing-duration', key: 'b', reference: 'video'}])
    expect(timings.b).toEqual({})
  })
})
