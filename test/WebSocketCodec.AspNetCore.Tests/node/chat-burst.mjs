// A chat burst from node's ws: N members join a room, print "open N", and on a "go" line on stdin each sends T texts
// of about S bytes at once ("<member> <index> xxxx..."). Every member must receive all N × T texts: each member's texts
// in the order it sent them, and every member the same order (the room relays in one order for all). Prints one JSON
// line with what each member got and exits 0 when every member got everything and none was closed; else 1.
// Usage: node chat-burst.mjs <url> <members> <texts> <size> [timeoutSeconds]
import WebSocket from 'ws';
import { createHash } from 'node:crypto';
import { createInterface } from 'node:readline';

const [url, membersArgument, textsArgument, sizeArgument, timeoutArgument] = process.argv.slice(2);
const members = Number(membersArgument);
const texts = Number(textsArgument);
const size = Number(sizeArgument);
const expected = members * texts;
setTimeout(() => finish('timeout'), Number(timeoutArgument ?? 60) * 1000).unref();

const state = [];
for (let m = 0; m < members; m++) {
  state.push({ socket: null, received: 0, outOfOrder: 0, last: new Array(members).fill(-1), hash: createHash('sha256'), closed: null, latencies: [] });
}

let sentAt = 0n;
const open = state.map((member, m) => new Promise((resolve, reject) => {
  const socket = new WebSocket(url, { perMessageDeflate: false });
  member.socket = socket;
  socket.once('open', resolve);
  socket.once('error', reject);
  socket.on('message', (data, isBinary) => {
    const text = data.toString('utf8');
    const space = text.indexOf(' ');
    const from = Number(text.slice(0, space));
    const index = Number(text.slice(space + 1, text.indexOf(' ', space + 1)));
    if (isBinary || !(index > member.last[from])) member.outOfOrder++;
    member.last[from] = index;
    member.hash.update(text);
    member.received++;
    if (member.received === expected) {
      member.latencies.push(Number(process.hrtime.bigint() - sentAt) / 1e6);
      if (state.every(s => s.received >= expected)) finish('done');
    }
  });
  socket.on('close', (code, reason) => { member.closed = { code, reason: reason.toString() }; if (!finished) check(); });
}));

let finished = false;
function check() {
  if (state.some(s => s.closed && s.received < expected)) finish('closed');
}

function finish(how) {
  if (finished) return;
  finished = true;
  const digests = new Set(state.map(s => s.received === expected ? s.hash.digest('hex') : `incomplete ${s.received}`));
  const complete = state.filter(s => s.received === expected).length;
  const closedEarly = state.filter(s => s.closed).map(s => s.closed);
  const outOfOrder = state.reduce((sum, s) => sum + s.outOfOrder, 0);
  const done = state.map(s => s.latencies[0]).filter(x => x !== undefined).sort((a, b) => a - b);
  const at = q => done.length ? done[Math.min(done.length - 1, Math.floor(q * done.length))] : null;
  const report = {
    how, members, expected, complete, closedEarly, outOfOrder, sameOrder: digests.size === 1,
    minReceived: Math.min(...state.map(s => s.received)),
    allReceivedMs: { p50: at(0.5), p99: at(0.99), max: done.length ? done[done.length - 1] : null },
  };
  console.log(JSON.stringify(report));
  const ok = how === 'done' && complete === members && closedEarly.length === 0 && outOfOrder === 0 && digests.size === 1;
  for (const s of state) { try { s.socket.close(1000, 'done'); } catch { } }
  setTimeout(() => process.exit(ok ? 0 : 1), 200);
}

try {
  await Promise.all(open);
} catch (error) {
  console.error(String(error && error.stack || error));
  process.exit(2);
}
console.log(`open ${members}`);
const lines = createInterface({ input: process.stdin });
lines.on('line', line => {
  if (line !== 'go') return;
  const padding = 'x'.repeat(size);
  sentAt = process.hrtime.bigint();
  for (let i = 0; i < texts; i++) {
    for (let m = 0; m < members; m++) {
      const head = `${m} ${i} `;
      state[m].socket.send(head + padding.slice(head.length));
    }
  }
});
