import type {CheerioAPI} from 'cheerio'
import {load} from '../vendor/cheerio.js'
import type {AnyNode, Element} from 'domhandler'

/** Parses with parse5 keeping source locations, so findings can name a line. */
export function loadHtml(source: string): CheerioAPI {
  return load(source, {sourceCodeLocationInfo: true})
}

interface LocatedElement {
  sourceCodeLocation?: {startLine: number; attrs?: Record<string, {startLine: number}>} | null
}

/** Line of an element (or of one of its attributes) in the source it was parsed from. */
export function lineOf(element: Element, attribute?: string): number | undefined {
  const location = (element as unknown as LocatedElement).sourceCodeLocation
  if (!location) return undefined
  return (attribute !== undefined ? location.attrs?.[attribute]?.startLine : undefined) ?? location.startLine
}

/** Source offsets of an attribute value as written (between its quotes), for locating text inside it. */
export function attributeSource(element: Element, attribute: string, source: string): {text: string; line: number} | undefined {
  const location = (element as unknown as {sourceCodeLocation?: {attrs?: Record<string, {startOffset: number; endOffset: number; startLine: number}>}})
    .sourceCodeLocation?.attrs?.[attribute]
  if (!location) return undefined
  return {text: source.slice(location.startOffset, location.endOffset), line: location.startLine}
}

/** True when `node` sits inside a `<template>`'s content that lies below `boundary`. */
export function isInsideTemplate(node: AnyNode, boundary: AnyNode | null): boolean {
  for (let current = node.parent; current && current !== boundary; current = current.parent) {
    if (current.type === 'root' && current.parent?.type === 'tag' && (current.parent as Element).name === 'template') return true
  }
  return false
}

/** `<div id="intro">`-style short description of an element for messages. */
export function describeElement(element: Element): string {
  const id = element.attribs.id
  if (id) return `<${element.name} id="${id}">`
  for (const attribute of ['data-composition-id', 'data-composition-src']) {
    const value = element.attribs[attribute]
    if (value) return `<${element.name} ${attribute}="${value}">`
  }
  return `<${element.name}>`
}
