// Bounded label values: every label that is not a closed set goes through one of these, so a
// misbehaving client or upstream cannot blow up the number of series.

export const OTHER = 'other';

/**
 * Free-form but code-chosen values (repair kinds, alias kinds, provider names): the first `max`
 * distinct values that look like identifiers keep their name, everything else is `other`.
 */
export class BoundedLabel {
  private readonly seen = new Set<string>();

  constructor(
    private readonly max: number,
    private readonly pattern: RegExp = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/,
  ) {}

  value(raw: string): string {
    if (this.seen.has(raw)) return raw;
    if (this.seen.size >= this.max || !this.pattern.test(raw)) return OTHER;
    this.seen.add(raw);
    return raw;
  }
}

/**
 * Model labels: configured model names always keep their name; the first `maxExtra` other models
 * seen get one too; the rest are `other`.
 */
export class ModelLabels {
  private readonly labelled: Set<string>;
  private extra = 0;

  constructor(
    known: readonly string[],
    private readonly maxExtra: number,
  ) {
    this.labelled = new Set(known);
  }

  value(model: string): string {
    if (this.labelled.has(model)) return model;
    if (this.extra >= this.maxExtra || model.length === 0 || model.length > 200) return OTHER;
    this.extra += 1;
    this.labelled.add(model);
    return model;
  }
}
