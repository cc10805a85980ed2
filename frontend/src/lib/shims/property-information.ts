// Bundle diet for react-markdown (see vite.config.ts): the full `property-information` knows
// every HTML and SVG attribute (18 KB). Markdown rendered without raw HTML only ever produces a
// few plain properties (href, title, src, alt, start, className), which map to React as-is.
interface Schema {
  space: 'html' | 'svg'
  property: Record<string, never>
  normal: Record<string, never>
}

export const html: Schema = { space: 'html', property: {}, normal: {} }
export const svg: Schema = { space: 'svg', property: {}, normal: {} }
export const hastToReact: Record<string, string> = {}

export function find(schema: Schema, property: string) {
  return {
    property,
    attribute: property === 'className' ? 'class' : property,
    space: schema.space,
    commaSeparated: false,
    spaceSeparated: property === 'className',
  }
}
