import type {VariableDeclaration} from '../../variables/variable-declaration.js'
import {captionControl} from './caption-control.js'

export type VariableValues = Record<string, string | number | boolean>

/** Typing in a text or number field reloads the preview once the typing pauses. */
const TYPING_PAUSE_MS = 250
const COLOR = /^#[0-9a-fA-F]{6}$/

/**
 * One native control per declared variable, labelled with its `label`, chosen by `type` and
 * configured from the type's fields. `onChange` receives every value whenever one changes.
 */
export class VariablesPanel {
  private declarations: VariableDeclaration[] = []
  private current: VariableValues = {}
  private typingTimer: number | undefined
  /** The composition's document URL: image values resolve against it, as in the page. */
  documentUrl = location.href
  /** String variables shown as captions (`data-captions-var`), and the caption files they may name. */
  captions: {variables: readonly string[]; files: readonly string[]} = {variables: [], files: []}

  constructor(
    private readonly form: HTMLFormElement,
    private readonly json: HTMLTextAreaElement,
    private readonly onChange: (values: VariableValues) => void,
  ) {
    form.addEventListener('submit', (event) => event.preventDefault())
  }

  get values(): VariableValues {
    return {...this.current}
  }

  /**
   * Rebuilds the controls. A value the user changed survives when it still fits its declaration;
   * every other variable shows its (possibly new) default.
   */
  setDeclarations(declarations: VariableDeclaration[]): void {
    const previousDefaults = new Map(this.declarations.map((declaration) => [declaration.id, declaration.default]))
    const edited = Object.entries(this.current).filter(([id, value]) => previousDefaults.get(id) !== value)
    const kept = new Map(edited)
    this.declarations = declarations
    this.current = Object.fromEntries(
      declarations.map((declaration) => {
        const value = kept.get(declaration.id)
        return [declaration.id, fits(declaration, value) ? value! : declaration.default]
      }),
    )
    this.form.replaceChildren(...declarations.map((declaration, index) => this.field(declaration, `variable-${index}`)))
    if (declarations.length === 0) {
      const empty = document.createElement('p')
      empty.className = 'empty'
      empty.textContent = 'This composition declares no variables (data-composition-variables on <html>).'
      this.form.append(empty)
    }
    this.showJson()
  }

  reset(): void {
    this.current = defaults(this.declarations)
    this.setDeclarations(this.declarations)
    this.onChange(this.values)
  }

  private field(declaration: VariableDeclaration, id: string): HTMLElement {
    const wrapper = element('div', {class: 'variable', 'data-variable': declaration.id, 'data-type': declaration.type})
    const label = element('label', {for: id})
    label.textContent = declaration.label || declaration.id
    const control = element('div', {class: 'control'})
    control.append(...this.inputs(declaration, id))
    wrapper.append(label, control)
    return wrapper
  }

  private inputs(declaration: VariableDeclaration, id: string): HTMLElement[] {
    const value = this.current[declaration.id]
    switch (declaration.type) {
      case 'string': {
        if (this.captions.variables.includes(declaration.id)) {
          return captionControl({id, value: String(value), files: this.captions.files, onChange: (next, typing) => this.set(declaration.id, next, typing)})
        }
        const input = element('input', {id, type: 'text', placeholder: declaration.placeholder, maxlength: declaration.maxLength})
        input.value = String(value)
        input.addEventListener('input', () => this.set(declaration.id, input.value, true))
        return [input]
      }
      case 'number': {
        const limits = {min: declaration.min, max: declaration.max, step: declaration.step ?? 'any'}
        const input = element('input', {id, type: 'number', ...limits})
        input.value = String(value)
        const inputs: HTMLElement[] = [input]
        if (declaration.min !== undefined && declaration.max !== undefined) {
          const slider = element('input', {type: 'range', 'aria-label': `${declaration.label || declaration.id} (slider)`, ...limits})
          slider.value = String(value)
          slider.addEventListener('input', () => {
            input.value = slider.value
            this.set(declaration.id, slider.valueAsNumber, true)
          })
          input.addEventListener('input', () => {
            if (Number.isFinite(input.valueAsNumber)) slider.value = input.value
          })
          inputs.push(slider)
        }
        input.addEventListener('input', () => {
          if (Number.isFinite(input.valueAsNumber)) this.set(declaration.id, input.valueAsNumber, true)
        })
        if (declaration.unit) {
          const unit = element('span', {class: 'unit'})
          unit.textContent = declaration.unit
          inputs.push(unit)
        }
        return inputs
      }
      case 'color': {
        const input = element('input', {id, type: 'color'})
        input.value = String(value).toLowerCase()
        input.addEventListener('input', () => this.set(declaration.id, input.value, true))
        return [input]
      }
      case 'boolean': {
        const input = element('input', {id, type: 'checkbox'})
        input.checked = value === true
        input.addEventListener('change', () => this.set(declaration.id, input.checked, false))
        return [input]
      }
      case 'enum': {
        const select = element('select', {id})
        for (const option of declaration.options) {
          const item = element('option', {value: option.value})
          item.textContent = option.label || option.value
          select.append(item)
        }
        select.value = String(value)
        select.addEventListener('change', () => this.set(declaration.id, select.value, false))
        return [select]
      }
      case 'image': {
        // A URL or a project path, as a render takes it; the thumbnail shows what the page will load.
        const input = element('input', {id, type: 'text', placeholder: 'https://… or images/photo.png'})
        input.value = String(value)
        const thumbnail = element('img', {class: 'thumbnail', alt: '', height: 32})
        const show = () => (input.value === '' ? thumbnail.removeAttribute('src') : thumbnail.setAttribute('src', new URL(input.value, this.documentUrl).href))
        show()
        input.addEventListener('input', () => {
          show()
          this.set(declaration.id, input.value, true)
        })
        return [input, thumbnail]
      }
    }
  }

  private set(id: string, value: string | number | boolean, typing: boolean): void {
    this.current[id] = value
    this.showJson()
    window.clearTimeout(this.typingTimer)
    if (typing) this.typingTimer = window.setTimeout(() => this.onChange(this.values), TYPING_PAUSE_MS)
    else this.onChange(this.values)
  }

  private showJson(): void {
    this.json.value = JSON.stringify(this.current)
  }
}

function defaults(declarations: VariableDeclaration[]): VariableValues {
  return Object.fromEntries(declarations.map((declaration) => [declaration.id, declaration.default]))
}

function fits(declaration: VariableDeclaration, value: unknown): boolean {
  switch (declaration.type) {
    case 'string':
      return typeof value === 'string'
    case 'number':
      return typeof value === 'number'
    case 'color':
      return typeof value === 'string' && COLOR.test(value)
    case 'boolean':
      return typeof value === 'boolean'
    case 'enum':
      return declaration.options.some((option) => option.value === value)
    case 'image':
      return typeof value === 'string'
  }
}

function element<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Record<string, string | number | undefined>): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes)) if (value !== undefined) node.setAttribute(name, String(value))
  return node
}
