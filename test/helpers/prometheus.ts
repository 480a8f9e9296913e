/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4), for `/metrics` tests:
 * every line must be a `# HELP`, a `# TYPE` or a sample of a family whose TYPE came before it
 * (a histogram's `_bucket`, `_sum` and `_count` included); names, label names, escaped label
 * values and numbers are checked. A line that breaks the format throws, naming it.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  /** Each family's TYPE by name. */
  types: Map<string, string>;
  samples: Sample[];
  /** The value of the one sample with this name and exactly these labels; undefined when none. */
  value(name: string, labels?: Record<string, string>): number | undefined;
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL_NAME = '[a-zA-Z_][a-zA-Z0-9_]*';
const LABEL_VALUE = '"(?:[^"\\\\\\n]|\\\\[\\\\"n])*"';
/** Go's ParseFloat, which Prometheus uses: `NaN` and `Inf` in any case (prom-client writes `Nan`). */
const NUMBER =
  '(?:[+-]?(?:\\d+\\.?\\d*(?:[eE][+-]?\\d+)?|\\.\\d+(?:[eE][+-]?\\d+)?)|[+-]?[iI][nN][fF]|[nN][aA][nN])';
const HELP_LINE = new RegExp(`^# HELP (${NAME}) (.*)$`);
const TYPE_LINE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);
const LABEL = `${LABEL_NAME}=${LABEL_VALUE}`;
const SAMPLE_LINE = new RegExp(
  `^(${NAME})(?:\\{((?:${LABEL})(?:,${LABEL})*,?)?\\})? (${NUMBER})(?: -?\\d+)?$`,
);
const LABEL_PAIR = new RegExp(`(${LABEL_NAME})=(${LABEL_VALUE})`, 'g');

export function parseExposition(text: string): Exposition {
  if (!text.endsWith('\n')) throw new Error('the exposition does not end with a newline');
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  const lines = text.slice(0, -1).split('\n');
  for (const [index, line] of lines.entries()) {
    const where = `line ${index + 1} (${JSON.stringify(line)})`;
    if (line === '') continue;
    if (line.startsWith('# HELP ')) {
      if (!HELP_LINE.test(line)) throw new Error(`${where}: not a HELP line`);
      continue;
    }
    const type = TYPE_LINE.exec(line);
    if (type) {
      if (types.has(type[1] as string)) throw new Error(`${where}: a second TYPE for ${type[1]}`);
      types.set(type[1] as string, type[2] as string);
      continue;
    }
    if (line.startsWith('#')) throw new Error(`${where}: an unknown comment`);
    samples.push(parseSample(line, where, types));
  }
  return {
    types,
    samples,
    value(name, labels = {}) {
      const wanted = JSON.stringify(Object.entries(labels).sort());
      const found = samples.filter(
        (sample) => sample.name === name && JSON.stringify(Object.entries(sample.labels).sort()) === wanted,
      );
      if (found.length > 1) throw new Error(`${found.length} samples of ${name} ${wanted}`);
      return found[0]?.value;
    },
  };
}

function parseSample(line: string, where: string, types: Map<string, string>): Sample {
  const match = SAMPLE_LINE.exec(line);
  if (!match) throw new Error(`${where}: not a sample line`);
  const name = match[1] as string;
  const family = familyOf(name, types);
  if (family === undefined) throw new Error(`${where}: ${name} has no TYPE before it`);
  const labels: Record<string, string> = {};
  for (const pair of (match[2] ?? '').matchAll(LABEL_PAIR)) {
    const labelName = pair[1] as string;
    if (labelName in labels) throw new Error(`${where}: label ${labelName} twice`);
    labels[labelName] = JSON.parse((pair[2] as string).replace(/\\n/g, '\\n'));
  }
  if (types.get(family) === 'histogram' && name.endsWith('_bucket') && labels.le === undefined)
    throw new Error(`${where}: a bucket without le`);
  return { name, labels, value: numberOf(match[3] as string) };
}

/** The family a sample belongs to: its own name, or a histogram's or summary's for its suffixes. */
function familyOf(name: string, types: Map<string, string>): string | undefined {
  if (types.has(name)) return name;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    const base = name.slice(0, -suffix.length);
    if (name.endsWith(suffix) && ['histogram', 'summary'].includes(types.get(base) ?? '')) return base;
  }
  return undefined;
}

function numberOf(text: string): number {
  const lower = text.toLowerCase();
  if (lower === 'nan') return Number.NaN;
  if (lower.endsWith('inf')) return lower.startsWith('-') ? -Infinity : Infinity;
  return Number(text);
}
