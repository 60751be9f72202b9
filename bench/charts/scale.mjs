// Renders the scale tool's results (every scale-*.json in the given folder) as an SVG chart beside them:
// <name>-memory.svg, the server's memory per idle websocket in KiB ((open - baseline) / open websockets, after a forced
// compacting collection; bench/WebSocketCodec.Scale's ScaleResult), RSS and managed heap side by side, one bar per
// variant and GC setting: the median of the runs, whiskers from min to max, the median written on the bar. The stamp
// of <name>.md (commit, machine, command) is the subtitle. Usage: node scale.mjs ../results
import fs from 'node:fs';
import path from 'node:path';
import { titled, writeSvg } from './chart.mjs';

const folder = process.argv[2] ?? '../results';
const files = fs.readdirSync(folder).filter(name => /^scale-.*\.json$/.test(name));
if (files.length === 0) {
  console.error(`no scale-*.json in ${folder}`);
  process.exit(1);
}

// The two figures per websocket (ScaleResult): panel header and field.
const measures = [['resident set (RSS)', 'RssKiBPerWebSocket'], ['managed heap (Bun: its JavaScript heap)', 'HeapKiBPerWebSocket']];

for (const name of files) {
  const file = path.join(folder, name);
  const results = JSON.parse(fs.readFileSync(file, 'utf8'));
  // One row per run and figure; a server not on .NET reports GC "none".
  const rows = results.flatMap(r => measures.map(([measure, field]) => ({
    Variant: r.Variant, Gc: r.Gc === 'none' ? 'none (not .NET)' : r.Gc, Run: r.Run, Measure: measure, KiB: r[field],
  })));
  const variants = [...new Set(rows.map(r => r.Variant))];
  const gcs = [...new Set(rows.map(r => r.Gc))];
  const runs = Math.max(...results.map(r => r.Run));
  const websockets = Math.max(...results.map(r => r.WebSockets));
  const encoding = {
    x: { field: 'Variant', type: 'nominal', sort: variants, title: null, axis: { labelAngle: -30, labelLimit: 300 } },
    xOffset: { field: 'Gc', type: 'nominal', sort: gcs },
    color: { field: 'Gc', type: 'nominal', sort: gcs, title: 'server GC', legend: { labelLimit: 300 } },
  };
  await writeSvg({
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: titled(`${name.replace(/\.json$/, '')}: server memory per idle websocket, KiB (${websockets.toLocaleString('en-US')} open; (open - baseline) / websockets; ` +
      (runs > 1 ? `median of ${runs} runs, whiskers: min to max)` : '1 run)'), file),
    data: { values: rows },
    facet: { column: { field: 'Measure', type: 'nominal', sort: measures.map(m => m[0]), title: null, header: { labelFontWeight: 'bold', labelFontSize: 12 } } },
    spec: {
      width: Math.max(200, 30 * variants.length * gcs.length), height: 240,
      encoding,
      layer: [
        { mark: 'bar', encoding: { y: { aggregate: 'median', field: 'KiB', type: 'quantitative', title: 'KiB per websocket' } } },
        { mark: 'rule', encoding: { color: { value: 'black' }, y: { aggregate: 'min', field: 'KiB' }, y2: { aggregate: 'max', field: 'KiB' } } },
        {
          mark: { type: 'text', dy: -6, fontSize: 9 },
          encoding: { y: { aggregate: 'max', field: 'KiB' }, text: { aggregate: 'median', field: 'KiB', format: '.1f' }, color: { value: 'black' } },
        },
      ],
    },
  }, file.replace(/\.json$/, '-memory.svg'));
}
