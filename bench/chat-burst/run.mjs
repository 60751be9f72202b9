// The chat burst as a new user would try it, measured: samples/Chat (Kestrel and --transport lean, the library's
// defaults) and the same wire contract on Bun (bun-chat.js), each room of node ws members sending their texts at once
// (test/WebSocketCodec.AspNetCore.Tests/node/chat-burst.mjs, the probe the tests run). Shapes and servers are
// interleaved, a fresh server process for every run. Per run: whether every member got every text in order and in one
// order, how many were closed, the time until the last member had everything, and the server's peak resident set
// during the burst above its resident set with every member joined (VmHWM after the burst, less VmRSS before it).
// Writes PREFIX.md (stamped) and PREFIX.json.
// Usage: node bench/chat-burst/run.mjs [--runs 10] [--shapes 50x40,200x20,300x20] [--size 4000]
//        [--servers kestrel,lean,bun] [--timeout 90] --report bench/results/chat-burst-4000
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { cpus } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const probeFolder = path.join(root, 'test', 'WebSocketCodec.AspNetCore.Tests', 'node');
const peersFolder = path.join(root, 'bench', 'WebSocketCodec.PerfTest', 'Peers');
const bun = path.join(peersFolder, 'node_modules', '@oven', 'bun-linux-x64', 'bin', 'bun');
const chatDll = path.join(root, 'samples', 'Chat', 'bin', 'Release', 'net10.0', 'Chat.dll');

const options = { runs: 10, shapes: '50x40,200x20,300x20', size: 4000, servers: 'kestrel,lean,bun', timeout: 90, report: null };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
  const key = argv[i].replace(/^--/, '');
  if (!(key in options) || argv[i + 1] === undefined) {
    console.error(`unknown or incomplete option ${argv[i]}; see the usage at the top of run.mjs`);
    process.exit(2);
  }
  options[key] = typeof options[key] === 'number' ? Number(argv[i + 1]) : argv[i + 1];
}
if (!options.report) {
  console.error('--report PREFIX is required');
  process.exit(2);
}
const shapes = options.shapes.split(',').map(s => s.split('x').map(Number));
const servers = options.servers.split(',');
const command = `node bench/chat-burst/run.mjs ${argv.join(' ')}`;

function run(file, args, cwd) {
  execFileSync(file, args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
}

// Set-up: what the tests and the perf tool install from their lock files, and the sample's build.
if (!existsSync(path.join(probeFolder, 'node_modules', 'ws'))) run('npm', ['ci', '--no-audit', '--no-fund'], probeFolder);
if (servers.includes('bun') && !existsSync(bun)) run('npm', ['ci', '--no-audit', '--no-fund'], peersFolder);
if (servers.some(s => s !== 'bun')) run('dotnet', ['build', '-c', 'Release', path.join(root, 'samples', 'Chat')], root);

function status(pid) {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = key => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)[1]) * 1024;
  return { rss: kib('VmRSS'), peak: kib('VmHWM') };
}

function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, in clock ticks of 10 ms
}

function lines(stream) {
  const reader = createInterface({ input: stream });
  const queue = [];
  const waiting = [];
  reader.on('line', line => (waiting.length ? waiting.shift()(line) : queue.push(line)));
  reader.on('close', () => waiting.splice(0).forEach(resolve => resolve(null)));
  return (ms, what) => new Promise((resolve, reject) => {
    if (queue.length) return resolve(queue.shift());
    const timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms);
    waiting.push(line => { clearTimeout(timer); resolve(line); });
  });
}

async function startServer(name) {
  const [file, args] = name === 'bun'
    ? [bun, [path.join(here, 'bun-chat.js'), '0']]
    : ['dotnet', [chatDll, '--port', '0', '--transport', name]];
  const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const next = lines(child.stdout);
  const line = await next(30_000, `"listening on" from ${name}`);
  const url = /^listening on (\S+)/.exec(line ?? '')?.[1];
  if (!url) throw new Error(`${name} printed ${line}`);
  const base = url.replace(/^http/, 'ws').replace(/\/chat\/$/, '/').replace(/\/?$/, '/');
  return { child, room: `${base}chat/burst` };
}

async function stopServer(child) {
  const exited = new Promise(resolve => child.once('exit', resolve));
  child.stdin.end();
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise(resolve => setTimeout(resolve, 10_000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

async function measure(name, members, texts) {
  const { child, room } = await startServer(name);
  try {
    const probe = spawn('node', ['chat-burst.mjs', room, members, texts, options.size, options.timeout], { cwd: probeFolder, stdio: ['pipe', 'pipe', 'inherit'] });
    const next = lines(probe.stdout);
    const opened = await next(60_000, 'open');
    if (opened !== `open ${members}`) throw new Error(`probe: ${opened}`);
    await new Promise(resolve => setTimeout(resolve, 500)); // every join reached its room
    const before = status(child.pid);
    const cpuBefore = cpuMs(child.pid);
    probe.stdin.write('go\n');
    const report = JSON.parse(await next((options.timeout + 30) * 1000, 'report'));
    const after = status(child.pid);
    await new Promise(resolve => probe.once('exit', resolve));
    return {
      server: name, members, texts, size: options.size,
      complete: report.complete, how: report.how, closed: report.closedEarly.length, closes: report.closedEarly,
      outOfOrder: report.outOfOrder, sameOrder: report.sameOrder, minReceived: report.minReceived,
      ok: report.how === 'done' && report.complete === members && report.closedEarly.length === 0 && report.outOfOrder === 0 && report.sameOrder,
      allMs: report.allReceivedMs.max, p50Ms: report.allReceivedMs.p50,
      rssBefore: before.rss, peakAbove: after.peak - before.rss, serverCpuMs: cpuMs(child.pid) - cpuBefore,
    };
  } finally {
    await stopServer(child);
  }
}

const results = [];
for (let r = 1; r <= options.runs; r++) {
  for (const [members, texts] of shapes) {
    for (const name of servers) {
      const result = { run: r, ...(await measure(name, members, texts)) };
      results.push(result);
      console.log(JSON.stringify(result));
    }
  }
}

const median = xs => { const s = [...xs].sort((a, b) => a - b); return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN; };
const mib = bytes => (bytes / (1024 * 1024)).toFixed(0);
const git = args => { try { return execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim(); } catch { return ''; } };
const head = git(['rev-parse', '--short', 'HEAD']) || 'unknown (no git)';
const dirty = git(['status', '--porcelain', '--untracked-files=no', '--', ':(top)', ':(top,exclude)bench/results']) !== '';
const runtime = /Microsoft\.NETCore\.App (\S+)/.exec(execFileSync('dotnet', ['--list-runtimes'], { encoding: 'utf8' }))?.[1];
const bunVersion = servers.includes('bun') ? execFileSync(bun, ['--version'], { encoding: 'utf8' }).trim() : 'not run';
const os = /^PRETTY_NAME="(.*)"/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1] ?? process.platform;

const page = [];
page.push(`# Chat burst at ${options.size} B: samples/Chat (Kestrel, lean) and Bun, node ws members`, '');
page.push('<!-- stamp: where this was measured (bench/results/README.md) -->');
page.push(`- commit: ${head}${dirty ? ' (with uncommitted changes)' : ''}`);
page.push(`- date: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`);
page.push(`- cpu: ${cpus()[0]?.model ?? 'unknown'}`);
page.push(`- cores: ${cpus().length}`);
page.push(`- runtime: .NET ${runtime} (servers), node ${process.version} (members), Bun ${bunVersion}`);
page.push(`- os: ${os}`);
page.push(`- command: \`${command}\``, '');
page.push(`Every run starts a fresh server: \`samples/Chat\` with the library's defaults (\`--transport kestrel\` or \`lean\`: water marks 64/32 KiB, no per-member hard limit, the process's broadcast budget, 30 s slow-consumer timeout), or \`bench/chat-burst/bun-chat.js\`, the same wire contract on Bun (uWebSockets pub/sub, its defaults: 16 MiB of backpressure per socket, then drops). The members are one node process (\`ws\`, the tests' \`chat-burst.mjs\`): they join one room, then on "go" each sends its texts of ${options.size} B at once; the room relays every text to every member, the sender included. A run is **ok** when every member got every text, each sender's in order and all in one order, and none was closed. "time to all": until the last member had everything (the probe's clock). "peak RSS above": the server's VmHWM after the burst less its VmRSS with every member joined, before "go". Runs interleaved: for each run, every shape, every server. A member that stops reading is not part of this page: \`ChatBurstTests\` asserts, in every cell, that one is closed with 1008 within the slow-consumer time while the others finish.`, '');
page.push('| members × texts | server | ok runs | closed (all runs) | time to all s, median (min-max) | × Bun (medians) | peak RSS above MiB, median (max) | server CPU s, median |');
page.push('|---|---|---:|---:|---|---:|---|---:|');
for (const [members, texts] of shapes) {
  const bunRuns = results.filter(x => x.server === 'bun' && x.members === members && x.texts === texts);
  const bunMedian = median(bunRuns.filter(x => x.ok).map(x => x.allMs));
  for (const name of servers) {
    const runs = results.filter(x => x.server === name && x.members === members && x.texts === texts);
    const ok = runs.filter(x => x.ok);
    const times = ok.map(x => x.allMs / 1000);
    const ratio = name !== 'bun' && ok.length && bunRuns.length && Number.isFinite(bunMedian) ? (median(ok.map(x => x.allMs)) / bunMedian).toFixed(2) : name === 'bun' ? '1' : 'n/a';
    page.push(`| ${members} × ${texts} | ${name} | ${ok.length}/${runs.length} | ${runs.reduce((s, x) => s + x.closed, 0)} | ${times.length ? `${median(times).toFixed(1)} (${Math.min(...times).toFixed(1)}-${Math.max(...times).toFixed(1)})` : 'none complete'} | ${ratio} | ${mib(median(runs.map(x => x.peakAbove)))} (${mib(Math.max(...runs.map(x => x.peakAbove)))}) | ${(median(runs.map(x => x.serverCpuMs)) / 1000).toFixed(1)} |`);
  }
}
page.push('', '## Every run', '');
page.push('| run | members × texts | server | ok | complete members | closed (codes) | fewest texts received | time to all s | peak RSS above MiB | RSS before MiB | server CPU s |');
page.push('|---:|---|---|---|---:|---|---:|---:|---:|---:|---:|');
for (const x of results) {
  const codes = x.closes.map(c => c.code).join(', ');
  page.push(`| ${x.run} | ${x.members} × ${x.texts} | ${x.server} | ${x.ok ? 'yes' : `no (${x.how})`} | ${x.complete} | ${x.closed}${codes ? ` (${codes})` : ''} | ${x.minReceived} | ${x.allMs === null ? '-' : (x.allMs / 1000).toFixed(1)} | ${mib(x.peakAbove)} | ${mib(x.rssBefore)} | ${(x.serverCpuMs / 1000).toFixed(1)} |`);
}
writeFileSync(`${options.report}.md`, page.join('\n') + '\n');
writeFileSync(`${options.report}.json`, JSON.stringify({ command, commit: head, options, results }, null, 2) + '\n');
console.log(`wrote ${options.report}.md and .json`);
