import type {CheerioAPI} from 'cheerio'
import {isTag, type AnyNode, type Element} from 'domhandler'
import {parseDeclarations, type ParsedDeclarations} from '../variables/parse-declarations.js'
import {assertDepthWithinBudget, assertSourceWithinBudget, COMPILE_BUDGET, measureTree, type CompileBudget} from './compile-budget.js'
import {lineOf, loadHtml} from './load-html.js'

export interface NumberAttribute {
  /** The value as written; undefined when the attribute is absent. */
  raw?: string
  /** Parsed value; undefined when absent or not a finite number. */
  value?: number
  line?: number
}

export interface ClipSource {
  /** `c1`, `c2`, ... in document order. */
  key: string
  element: Element
  id?: string
  /** Parsed `data-start`: seconds, or the id of the clip it follows; 0 when absent. */
  start: number | {after: string}
  /** `data-start` as written. */
  startRaw?: string
  duration: NumberAttribute
  trackIndex: NumberAttribute
  line?: number
  isHost: boolean
  isMedia: boolean
}

export interface HostSource {
  element: Element
  /** `data-composition-src` as written, relative to the file that contains the host. */
  src: string
  variableValuesRaw?: string
  line?: number
}

export interface MediaSource {
  element: Element
  tag: 'video' | 'audio'
  src?: string
  hasAudio: boolean
  colorGradingRaw?: string
  duration: NumberAttribute
  line?: number
}

export interface ParsedComposition {
  $: CheerioAPI
  source: string
  htmlElement: Element | undefined
  /** The composition element (see `findCompositionRoot`); undefined when none carries `data-composition-id`. */
  root: Element | undefined
  id?: string
  width: NumberAttribute
  height: NumberAttribute
  duration: NumberAttribute
  /** The root's `data-fps` (its `raw` text is a rate such as `60` or `30000/1001`): the render's rate unless an option names one. */
  fps: NumberAttribute
  /** The root's `data-ready-timeout`: seconds a capture waits for the page to be ready (holds included). */
  readyTimeout: NumberAttribute
  /** The element that carries `data-composition-variables` (`<html>`, else the root element). */
  declarationsElement?: Element
  declarations: ParsedDeclarations
  clips: ClipSource[]
  hosts: HostSource[]
  media: MediaSource[]
  /** Elements of the whole file, template content included. */
  elementCount: number
}

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/

/**
 * The root composition element: `<html>` when it carries `data-composition-id`, otherwise the first
 * element in document order (template content included) that carries it and is not a
 * sub-composition host.
 */
export function findCompositionRoot($: CheerioAPI): Element | undefined {
  const html = $('html')[0]
  if (html && html.attribs['data-composition-id'] !== undefined) return html
  return $('[data-composition-id]')
    .toArray()
    .find((element) => element.attribs['data-composition-src'] === undefined)
}

export function parseNumberAttribute(element: Element | undefined, name: string): NumberAttribute {
  const raw = element?.attribs[name]
  if (element === undefined || raw === undefined) return {}
  const trimmed = raw.trim()
  const value = NUMBER.test(trimmed) ? Number(trimmed) : undefined
  return {raw, value, line: lineOf(element, name)}
}

/**
 * Reads one composition file's source into a model: root attributes, declarations, clips,
 * sub-composition hosts and media. Only what lies in the root composition counts; the content of
 * a host is replaced by its sub-composition, so nothing inside a host is read. A file over the
 * compile budget (elements, nesting) is refused with LIMIT_EXCEEDED naming `display`.
 */
export function parseComposition(source: string, display = 'composition', budget: CompileBudget = COMPILE_BUDGET): ParsedComposition {
  assertSourceWithinBudget(source, display, budget)
  const $ = loadHtml(source)
  const {elements: elementCount, depth} = measureTree($.root()[0])
  assertDepthWithinBudget(depth, display, budget)
  const htmlElement = $('html')[0]
  const root = findCompositionRoot($)
  const declarationsElement = [htmlElement, root].find((element) => element?.attribs['data-composition-variables'] !== undefined)
  const scope = root ?? htmlElement
  const inScope = scope ? elementsInScope(scope) : []

  const clips: ClipSource[] = []
  const hosts: HostSource[] = []
  const media: MediaSource[] = []
  for (const element of inScope) {
    const attribs = element.attribs
    const isHost = attribs['data-composition-src'] !== undefined
    const isMedia = element.name === 'video' || element.name === 'audio'
    if (attribs['data-start'] !== undefined || attribs['data-duration'] !== undefined || isHost) {
      clips.push({
        key: `c${clips.length + 1}`,
        element,
        id: attribs.id || undefined,
        start: parseStart(attribs['data-start']),
        startRaw: attribs['data-start'],
        duration: parseNumberAttribute(element, 'data-duration'),
        trackIndex: parseNumberAttribute(element, 'data-track-index'),
        line: lineOf(element),
        isHost,
        isMedia,
      })
    }
    if (isHost) {
      hosts.push({element, src: attribs['data-composition-src'], variableValuesRaw: attribs['data-variable-values'], line: lineOf(element)})
    }
    if (isMedia) {
      media.push({
        element,
        tag: element.name as 'video' | 'audio',
        src: attribs.src,
        hasAudio: attribs['data-has-audio'] !== undefined && attribs['data-has-audio'] !== 'false',
        colorGradingRaw: attribs['data-color-grading'],
        duration: parseNumberAttribute(element, 'data-duration'),
        line: lineOf(element),
      })
    }
  }

  return {
    $,
    source,
    htmlElement,
    root,
    id: root?.attribs['data-composition-id'] || undefined,
    width: parseNumberAttribute(root, 'data-width'),
    height: parseNumberAttribute(root, 'data-height'),
    duration: parseNumberAttribute(root, 'data-duration'),
    fps: parseNumberAttribute(root, 'data-fps'),
    readyTimeout: parseNumberAttribute(root, 'data-ready-timeout'),
    declarationsElement,
    declarations: parseDeclarations(declarationsElement?.attribs['data-composition-variables']),
    clips,
    hosts,
    media,
    elementCount,
  }
}

/** Seconds when numeric, otherwise the id of the clip this one follows. Absent means 0. */
function parseStart(raw: string | undefined): number | {after: string} {
  if (raw === undefined) return 0
  const trimmed = raw.trim()
  return NUMBER.test(trimmed) ? Number(trimmed) : {after: trimmed}
}

/**
 * The elements below `scope` in document order, one pass without recursion: a host's content is
 * not entered (its sub-composition replaces it), nor a `<template>`'s content (a document node of
 * its own, not an element).
 */
function elementsInScope(scope: Element): Element[] {
  const found: Element[] = []
  const stack: AnyNode[] = [...scope.children].reverse()
  while (stack.length > 0) {
    const node = stack.pop()!
    if (!isTag(node)) continue
    found.push(node)
    if (node.attribs['data-composition-src'] !== undefined) continue
    for (let index = node.children.length - 1; index >= 0; index--) stack.push(node.children[index])
  }
  return found
}
