// Renders the perf tool's results (every perf-*.json in the given folder) as SVG charts beside them, a panel per
// connection count (rows) and payload (columns), each with its own y scale, the variants in the order they ran:
// <name>-throughput.svg (median messages per second per variant, whiskers from the slowest to the fastest run) and
// <name>-latency.svg (the round-trip percentiles the tool records, p50, p95 and p99, side by side per variant).
// The stamp of <name>.md (commit, machine, command) is the subtitle. Usage: node render.mjs ../results
import fs from 'node:fs';
import path from 'node:path';
import { titled, writeSvg } from './chart.mjs';

const folder = process.argv[2] ?? '../results';
const files = fs.readdirSync(folder).filter(name => /^perf-.*\.json$/.test(name));
if (files.length === 0) {
  console.error(`no perf-*.json in ${folder}`);
  process.exit(1);
}

// The percentiles in the perf tool's JSON (PerfResult): label and field.
const percentiles = [['p50', 'P50Microseconds'], ['p95', 'P95Microseconds'], ['p99', 'P99Microseconds']];

// Row and column headers: "1 connection" / "100 connections", "64 B".
const facet = {
  row: { field: 'Connections', type: 'ordinal', title: null, header: { labelExpr: "datum.value + (datum.value == 1 ? ' connection' : ' connections')", labelFontWeight: 'bold' } },
  column: { field: 'Payload', type: 'ordinal', title: 'payload', header: { labelExpr: "datum.value + ' B'", labelFontWeight: 'bold' } },
};

for (const name of files) {
  const file = path.join(folder, name);
  const results = JSON.parse(fs.readFileSync(file, 'utf8'));
  const base = file.replace(/\.json$/, '');
  const title = name.replace(/\.json$/, '');
  const variants = [...new Set(results.map(r => r.Variant))];
  const runs = Math.max(...results.map(r => r.Runs ?? 1));
  const x = { field: 'Variant', type: 'nominal', sort: variants, title: null, axis: { labelAngle: -40, labelLimit: 300 } };

  await writeSvg({
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: titled(`${title}: echoes per second, server on one core (median of ${runs} run${runs === 1 ? '' : 's'}; whiskers: slowest to fastest run)`, file),
    data: { values: results },
    facet,
    resolve: { scale: { y: 'independent' } },
    spec: {
      width: Math.max(120, 22 * variants.length), height: 160,
      encoding: { x },
      layer: [
        {
          mark: 'bar',
          encoding: {
            y: { field: 'MessagesPerSecond', type: 'quantitative', title: 'messages/s', axis: { format: '~s' } },
            color: { field: 'Variant', type: 'nominal', sort: variants, legend: null },
            tooltip: [{ field: 'Variant' }, { field: 'MessagesPerSecond', format: ',.0f' }, { field: 'MinMessagesPerSecond', format: ',.0f' }, { field: 'MaxMessagesPerSecond', format: ',.0f' }],
          },
        },
        { mark: { type: 'rule', color: 'black' }, encoding: { y: { field: 'MinMessagesPerSecond', type: 'quantitative' }, y2: { field: 'MaxMessagesPerSecond' } } },
      ],
    },
  }, `${base}-throughput.svg`);

  // One row per result and percentile; no stacking (the bars stand side by side).
  const latency = results.flatMap(r => percentiles.map(([percentile, field]) => ({ ...r, Percentile: percentile, Microseconds: r[field] })));
  await writeSvg({
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: titled(`${title}: round-trip latency percentiles at window ${results[0].Window} (µs; ${percentiles.map(p => p[0]).join(', ')} of the median run)`, file),
    data: { values: latency },
    facet,
    resolve: { scale: { y: 'independent' } },
    spec: {
      width: Math.max(120, 27 * variants.length), height: 160,
      mark: 'bar',
      encoding: {
        x,
        xOffset: { field: 'Percentile', type: 'nominal', sort: percentiles.map(p => p[0]) },
        y: { field: 'Microseconds', type: 'quantitative', title: 'µs', stack: null, axis: { format: ',.0f' } },
        color: { field: 'Percentile', type: 'nominal', sort: percentiles.map(p => p[0]), title: 'percentile', scale: { range: ['#9ecae1', '#4292c6', '#08306b'] } },
        tooltip: [{ field: 'Variant' }, { field: 'Percentile' }, { field: 'Microseconds', format: ',.1f' }],
      },
    },
  }, `${base}-latency.svg`);
}
