// Renders RemotePingPong's raw runs (every akka-pingpong*.json in the given folder) as an SVG chart beside them:
// <name>-throughput.svg, median msgs/s by client count, one bar per transport, whiskers from min to max (runs that
// stalled or failed are no results and are left out). The stamp of <name>.md (commit, machine, command) is the
// subtitle. Usage: node pingpong.mjs ../results
import fs from 'node:fs';
import path from 'node:path';
import { titled, writeSvg } from './chart.mjs';

const folder = process.argv[2] ?? '../results';
const files = fs.readdirSync(folder).filter(name => /^akka-pingpong.*\.json$/.test(name));
if (files.length === 0) {
  console.error(`no akka-pingpong*.json in ${folder}`);
  process.exit(1);
}

for (const name of files) {
  const file = path.join(folder, name);
  const runs = JSON.parse(fs.readFileSync(file, 'utf8'));
  const rows = runs.filter(r => r.Repeat > 0 && r.Status === 'Ok');
  const variants = [...new Set(runs.map(r => r.Variant))];
  const roundTrips = runs.length > 0 ? runs[runs.length - 1].RoundTrips : 0;
  const encoding = {
    x: { field: 'Clients', type: 'ordinal', title: 'clients' },
    xOffset: { field: 'Variant', type: 'nominal', sort: variants },
    color: { field: 'Variant', type: 'nominal', sort: variants, title: 'transport' },
  };
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: titled(`RemotePingPong: median msgs/s (${roundTrips.toLocaleString('en-US')} round trips per client; whiskers: min to max)`, file),
    width: 640, height: 300,
    data: { values: rows },
    layer: [
      { mark: 'bar', encoding: { ...encoding, y: { aggregate: 'median', field: 'MessagesPerSecond', type: 'quantitative', title: 'msgs/s' } } },
      {
        mark: { type: 'rule', color: 'black' },
        encoding: { ...encoding, color: { value: 'black' }, y: { aggregate: 'min', field: 'MessagesPerSecond' }, y2: { aggregate: 'max', field: 'MessagesPerSecond' } },
      },
    ],
  };
  await writeSvg(spec, file.replace(/\.json$/, '-throughput.svg'));
}
