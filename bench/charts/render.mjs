// Renders the perf tool's results (every perf-*.json in the given folder) as SVG charts beside them:
// <name>-throughput.svg (messages per second by payload, one bar per variant, a panel per connection count) and
// <name>-latency.svg (p50 and p99 round trips). Usage: node render.mjs ../results
import fs from 'node:fs';
import path from 'node:path';
import * as vega from 'vega';
import * as vegaLite from 'vega-lite';

const folder = process.argv[2] ?? '../results';
const files = fs.readdirSync(folder).filter(name => /^perf-.*\.json$/.test(name));
if (files.length === 0) {
  console.error(`no perf-*.json in ${folder}`);
  process.exit(1);
}

async function render(spec, file) {
  const view = new vega.View(vega.parse(vegaLite.compile(spec).spec), { renderer: 'none' });
  fs.writeFileSync(file, await view.toSVG());
  view.finalize();
  console.log(`wrote ${file}`);
}

for (const name of files) {
  const results = JSON.parse(fs.readFileSync(path.join(folder, name), 'utf8'));
  const base = path.join(folder, name.replace(/\.json$/, ''));
  const title = name.replace(/\.json$/, '');
  const rows = results.map(r => ({ ...r, Connections: `${r.Connections} connection${r.Connections === 1 ? '' : 's'}` }));
  await render({
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: `${title}: echoes per second (server on one core)`,
    data: { values: rows },
    facet: { column: { field: 'Connections', type: 'nominal', title: null } },
    spec: {
      width: 320, height: 220,
      mark: 'bar',
      encoding: {
        x: { field: 'Payload', type: 'ordinal', title: 'payload (bytes)' },
        xOffset: { field: 'Variant', type: 'nominal' },
        y: { field: 'MessagesPerSecond', type: 'quantitative', title: 'messages/s' },
        color: { field: 'Variant', type: 'nominal' },
        tooltip: [{ field: 'Variant' }, { field: 'MessagesPerSecond', format: ',.0f' }],
      },
    },
  }, `${base}-throughput.svg`);

  const latency = rows.flatMap(r => [
    { ...r, Percentile: 'p50', Microseconds: r.P50Microseconds },
    { ...r, Percentile: 'p99', Microseconds: r.P99Microseconds },
  ]);
  await render({
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: `${title}: round-trip latency at window ${results[0].Window}`,
    data: { values: latency },
    facet: { row: { field: 'Connections', type: 'nominal', title: null }, column: { field: 'Percentile', type: 'nominal', title: null } },
    spec: {
      width: 300, height: 180,
      mark: 'bar',
      encoding: {
        x: { field: 'Payload', type: 'ordinal', title: 'payload (bytes)' },
        xOffset: { field: 'Variant', type: 'nominal' },
        y: { field: 'Microseconds', type: 'quantitative', title: 'µs', scale: { type: 'log' } },
        color: { field: 'Variant', type: 'nominal' },
      },
    },
  }, `${base}-latency.svg`);
}
