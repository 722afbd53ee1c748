import * as fs from 'fs';
import * as path from 'path';

/** The parts of @lezer/common's tree the checks use (the package's types are ES-module only). */
interface SyntaxNode {
  readonly name: string;
  readonly from: number;
  readonly to: number;
  readonly type: { readonly isError: boolean };
  readonly node: { readonly parent: { readonly name: string } | null };
}
const { parser } = require('@prometheus-io/lezer-promql') as {
  parser: { parse(text: string): { iterate(spec: { enter(node: SyntaxNode): void }): void } };
};

/** Grafana variables as a dashboard would substitute them. */
const GRAFANA_VARIABLES: Record<string, string> = {
  '$namespace': 'dynamo-system',
  '$model': '.*',
  '$__rate_interval': '5m',
  '${datasource}': 'prometheus',
};

/** PromQL syntax errors of an expression (after Grafana variables are substituted); [] when it parses. */
export function promqlErrors(expr: string): string[] {
  let text = expr;
  for (const [v, value] of Object.entries(GRAFANA_VARIABLES)) text = text.split(v).join(value);
  const errors: string[] = [];
  parser.parse(text).iterate({
    enter: (node) => {
      if (node.type.isError) errors.push(`syntax error at ${node.from} in: ${text}`);
    },
  });
  return errors;
}

/** The metric names a PromQL expression reads (identifiers in selector position). */
export function metricNames(expr: string): string[] {
  const names: string[] = [];
  const text = expr.split('$__rate_interval').join('5m');
  const tree = parser.parse(text);
  tree.iterate({
    enter: (node) => {
      if (node.name === 'Identifier' && node.node.parent?.name === 'VectorSelector') names.push(text.slice(node.from, node.to));
    },
  });
  return names;
}

function reference(): string {
  const file = path.resolve(__dirname, '../../../shared/dynamo/reference.md');
  if (!fs.existsSync(file)) throw new Error(`Dynamo reference not found at ${file}`);
  return fs.readFileSync(file, 'utf8').replace(/\s+/g, ' ');
}

/** Metric names in a sentence of the digest: full names, and `_suffix` names completed with `prefix`. */
function namesIn(sentence: string, prefix: string): string[] {
  return [...sentence.matchAll(/`(_?[a-z_]+)(?:\{([a-z_,]+)\})?`/g)].flatMap((m) => {
    const base = m[1].startsWith('_') ? `${prefix}${m[1]}` : m[1];
    return m[2] ? m[2].split(',').map((part) => `${base}${part}`) : [base];
  });
}

/** The frontend and worker metrics reference.md lists (section d). */
export function referenceServingMetrics(): string[] {
  const text = reference();
  const start = text.indexOf('Metrics at `GET :8000/metrics`');
  const worker = text.indexOf('Worker-side:', start);
  const end = text.indexOf('`/busy_threshold`', worker);
  if (start < 0 || worker < 0 || end < 0) throw new Error('the frontend metrics are missing from reference.md');
  const frontend = namesIn(text.slice(start, worker), 'dynamo_frontend').filter((n) => n.startsWith('dynamo_frontend_'));
  const component = namesIn(text.slice(worker, end), 'dynamo_component').filter((n) => n.startsWith('dynamo_component_'));
  return [...frontend, ...component];
}
