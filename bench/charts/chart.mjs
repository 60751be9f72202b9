// What the chart scripts share: the stamp of the page beside a JSON file as a chart's subtitle, and a vega-lite spec
// written out as SVG.
import fs from 'node:fs';
import * as vega from 'vega';
import * as vegaLite from 'vega-lite';

// Splits text into lines of at most `width` characters at spaces (a longer word gets a line of its own).
function wrap(text, width) {
  const lines = [];
  for (const word of text.split(' ')) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last].length + 1 + word.length <= width) lines[last] += ` ${word}`;
    else lines.push(word);
  }
  return lines;
}

// The stamp of NAME.md beside NAME.json (bench/results/README.md, "The stamp": commit, date, cpu, cores, runtime, os,
// command) as subtitle lines: where it was measured, then the command; none when there is no such page or block.
export function stampSubtitle(jsonFile) {
  const page = jsonFile.replace(/\.json$/, '.md');
  if (!fs.existsSync(page)) return [];
  const lines = fs.readFileSync(page, 'utf8').split('\n');
  const start = lines.findIndex(line => line.startsWith('<!-- stamp:'));
  if (start < 0) return [];
  const stamp = {};
  for (const line of lines.slice(start + 1)) {
    const field = /^- (\w+): (.*)$/.exec(line);
    if (!field) break;
    stamp[field[1]] = field[2];
  }
  const command = /`([^`]+)`/.exec(stamp.command ?? '')?.[1] ?? stamp.command ?? '';
  const cores = stamp.cores === '1' ? '1 core' : /^\d+$/.test(stamp.cores ?? '') ? `${stamp.cores} cores` : `cores: ${stamp.cores}`;
  const where = `commit ${stamp.commit} · ${stamp.date} · ${stamp.cpu}, ${cores} · ${stamp.runtime} · ${stamp.os}`;
  return [...wrap(where, 120), ...wrap(`command: ${command}`, 120)];
}

// A title with the stamp below it (vega-lite's subtitle, one array entry a line).
export function titled(text, jsonFile) {
  const subtitle = stampSubtitle(jsonFile);
  return { text, anchor: 'start', ...(subtitle.length === 0 ? {} : { subtitle, subtitleFont: 'monospace', subtitleFontSize: 9, subtitlePadding: 6 }) };
}

// Compiles the vega-lite spec and writes it to file as SVG.
export async function writeSvg(spec, file) {
  const view = new vega.View(vega.parse(vegaLite.compile(spec).spec), { renderer: 'none' });
  fs.writeFileSync(file, await view.toSVG());
  view.finalize();
  console.log(`wrote ${file}`);
}
