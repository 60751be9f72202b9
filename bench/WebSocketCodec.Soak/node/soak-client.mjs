// The soak's second client: node's ws. Same traffic rules as the C# generator (SoakTraffic), with its own seeded
// generator (sfc32): sizes 70 % 0-125 B, 25 % 126-65,536 B, 5 % 65,537-70,000 B; every boundaryEvery-th message one of
// the length boundaries; half text (random UTF-8 of 1-4 byte characters), half binary; 20 % in 2-5 fragments, text cuts
// moved inside a multi-byte character, a unique Ping after a fragment half the time. Every echo is checked byte-exact
// and in order, every Pong against the Pings sent (before its message's echo); ws validates the server's frames.
// With --deflate 1 it offers permessage-deflate and fails when it is not negotiated as offered.
// Prints one JSON line of counts (the fields of SoakCounts) and exits 0, or 1 when something failed.
import WebSocket from 'ws';

const args = Object.fromEntries(process.argv.slice(2).reduce((pairs, arg, i, all) => {
  if (arg.startsWith('--')) pairs.push([arg.slice(2), all[i + 1]]);
  return pairs;
}, []));
const url = args.url;
const connections = Number(args.connections ?? 1);
const framesPerConnection = Number(args.frames ?? 1000);
const seed = String(args.seed ?? 1);
const segment = Number(args.segment ?? 0);
const first = Number(args.first ?? 0);
const window = Number(args.window ?? 16);
const boundaryEvery = Number(args['boundary-every'] ?? 16);
const stallMs = Number(args['stall-seconds'] ?? 60) * 1000;
const deflate = args.deflate === '1';
const smallWindowBits = Number(args['small-window-bits'] ?? 9);
const firstVariant = Number(args['first-variant'] ?? 0);

const MAX_LENGTH = 70000;
const STARTS = 1 << 18;
const BOUNDARIES = [124, 125, 126, 127, 128, 65534, 65535, 65536, 65537];

function hashSeed(text) {
  let h = 1779033703 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    h = Math.imul(h ^ text.charCodeAt(i), 3432918353);
    h = (h << 13) | (h >>> 19);
  }
  return () => {
    h = Math.imul(h ^ (h >>> 16), 2246822507);
    h = Math.imul(h ^ (h >>> 13), 3266489909);
    return (h ^= h >>> 16) >>> 0;
  };
}

function sfc32(text) {
  const next = hashSeed(text);
  let a = next(), b = next(), c = next(), d = next();
  const u32 = () => {
    a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 12; i++) u32();
  return {
    u32,
    double: () => u32() / 4294967296,
    int: (min, maxInclusive) => min + Math.floor((u32() / 4294967296) * (maxInclusive - min + 1)),
  };
}

const isContinuation = (b) => (b & 0xc0) === 0x80;

function material() {
  const random = sfc32(`${seed}/material`);
  const binary = Buffer.alloc(STARTS + MAX_LENGTH);
  for (let i = 0; i < binary.length; i++) binary[i] = random.u32() & 0xff;
  const need = STARTS + MAX_LENGTH + 4;
  const text = Buffer.alloc(need + 4);
  let length = 0;
  while (length < need) {
    const kind = random.int(0, 99);
    let scalar;
    if (kind < 40) scalar = random.int(0x20, 0x7e);
    else if (kind < 65) scalar = random.int(0x80, 0x7ff);
    else if (kind < 90) { scalar = random.int(0x800, 0xffff - 0x800); if (scalar >= 0xd800) scalar += 0x800; }
    else scalar = random.int(0x10000, 0x10ffff);
    length += text.write(String.fromCodePoint(scalar), length, 'utf8');
  }
  return { binary, text: text.subarray(0, length) };
}

const stuff = material();

function traffic(connection) {
  const random = sfc32(`${seed}/${segment}/${connection}`);
  const f = 1 / boundaryEvery;
  const small = (0.70 - f * 2 / 9) / (1 - f);
  const medium = (0.25 - f * 6 / 9) / (1 - f);
  let index = 0;
  let pingSequence = 0n;
  return () => {
    const i = index++;
    let length;
    if (i % boundaryEvery === boundaryEvery - 1) length = BOUNDARIES[(Math.floor(i / boundaryEvery) + connection) % BOUNDARIES.length];
    else {
      const r = random.double();
      length = r < small ? random.int(0, 125) : r < small + medium ? random.int(126, 65536) : random.int(65537, MAX_LENGTH);
    }
    const text = random.int(0, 1) === 0;
    let start = random.int(0, STARTS - 1);
    let payload;
    if (text) {
      const source = stuff.text;
      while (isContinuation(source[start])) start++;
      let end = start + length;
      while (end > start && isContinuation(source[end])) end--;
      payload = Buffer.alloc(length);
      source.copy(payload, 0, start, end);
      for (let k = end - start; k < length; k++) payload[k] = 0x61 + random.int(0, 25);
    } else {
      payload = Buffer.from(stuff.binary.subarray(start, start + length));
    }
    const message = { index: i, text, payload, ends: [length], pings: [], inside: 0, lastPing: -1n };
    if (random.int(0, 4) !== 0) return message;
    const fragments = random.int(2, 5);
    const ends = [];
    for (let k = 0; k < fragments - 1; k++) {
      let cut = random.int(0, length);
      if (text) {
        for (let probe = cut; probe < Math.min(length, cut + 8); probe++) {
          if (isContinuation(payload[probe])) { cut = probe; break; }
        }
      }
      ends.push(cut);
    }
    ends.sort((a, b) => a - b);
    ends.push(length);
    message.ends = ends;
    for (let k = 0; k < fragments - 1; k++) {
      if (text && ends[k] > 0 && ends[k] < length && isContinuation(payload[ends[k]])) message.inside++;
      if (random.int(0, 1) === 0) {
        const ping = Buffer.alloc(random.int(8, 124));
        ping.writeBigInt64LE(pingSequence++, 0);
        for (let b = 8; b < ping.length; b++) ping[b] = random.u32() & 0xff;
        message.pings[k] = ping;
      }
    }
    return message;
  };
}

const boundaryIndex = (n) => (n >= 124 && n <= 128 ? n - 124 : n >= 65534 && n <= 65537 ? n - 65534 + 5 : -1);
const sizeClass = (n) => (n <= 125 ? 0 : n <= 65536 ? 1 : 2);

const counts = {
  connections: 0, framesSent: 0, framesReceived: 0, messages: 0, messagesVerified: 0, textMessages: 0,
  bytesSent: 0, bytesReceived: 0, fragmentedMessages: 0, fragments: 0, splitsInsideCharacter: 0,
  pingsSent: 0, pongsReceived: 0, pingsAnswered: 0, compressedSent: 0, compressedReceived: 0, sizeClasses: [0, 0, 0],
  boundarySent: BOUNDARIES.map(() => 0), boundaryReceived: BOUNDARIES.map(() => 0), failures: 0, failureSamples: [],
};

function fail(name, text) {
  counts.failures++;
  if (counts.failureSamples.length < 20) counts.failureSamples.push(`node ${name}: ${text}`);
}

// permessage-deflate (--deflate 1), as SoakDeflate, in turn by connection from --first-variant: context takeover both ways; none;
// none with the server's window limited. Threshold 0: ws compresses every message, fragmented ones too (its default
// threshold of 1,024 bytes would leave most of the small ones uncompressed).
function deflateOffer(variant) {
  if (variant === 0) return { threshold: 0, serverNoContextTakeover: false, clientNoContextTakeover: false };
  if (variant === 1) return { threshold: 0, serverNoContextTakeover: true, clientNoContextTakeover: true };
  return { threshold: 0, serverNoContextTakeover: true, clientNoContextTakeover: true, serverMaxWindowBits: smallWindowBits };
}

// Why the negotiated parameters are not the variant's (or deflate is missing), or null. Then counts the compressed
// messages both ways through ws's own deflate object: a message is counted at its final compressed frame.
function checkAndCountDeflate(ws, variant) {
  const extension = ws._extensions['permessage-deflate'];
  if (!extension) return `permessage-deflate was offered (variant ${variant}) but not negotiated (extensions: '${ws.extensions}')`;
  const p = extension.params;
  const noContext = variant !== 0;
  const serverBits = variant === 2 ? smallWindowBits : undefined;
  if (Boolean(p.server_no_context_takeover) !== noContext || Boolean(p.client_no_context_takeover) !== noContext
    || (serverBits !== undefined && Number(p.server_max_window_bits) !== serverBits)) {
    return `permessage-deflate negotiated '${ws.extensions}' where variant ${variant} was offered`;
  }
  const compress = extension.compress.bind(extension);
  extension.compress = (data, fin, callback) => {
    if (fin) counts.compressedSent++;
    compress(data, fin, callback);
  };
  const decompress = extension.decompress.bind(extension);
  extension.decompress = (data, fin, callback) => {
    if (fin) counts.compressedReceived++;
    decompress(data, fin, callback);
  };
  return null;
}

function runConnection(connection, ordinal) {
  const name = `${deflate ? 'node-deflate' : new URL(url).protocol === 'wss:' ? 'node-tls' : 'node'} #${connection}`;
  return new Promise((resolve) => {
    const next = traffic(connection);
    const variant = (firstVariant + ordinal) % 3;
    const ws = new WebSocket(url, { rejectUnauthorized: false, perMessageDeflate: deflate ? deflateOffer(variant) : false, maxPayload: 16 * 1024 * 1024 });
    const expected = [];
    const pings = [];
    let answered = -1n;
    let planned = 0;
    let inFlight = 0;
    let sendingDone = false;
    let failed = false;
    let finished = false;
    let lastActivity = Date.now();
    const finish = () => {
      if (finished) return;
      finished = true;
      clearInterval(watchdog);
      resolve();
    };
    const stop = (text) => {
      if (failed) return;
      failed = true;
      fail(name, text);
      ws.terminate();
    };
    const watchdog = setInterval(() => {
      if (Date.now() - lastActivity > stallMs) stop(`nothing arrived for ${stallMs / 1000} s`);
    }, 1000);

    const pump = () => {
      while (!failed && !sendingDone && inFlight < window) {
        if (planned >= framesPerConnection) {
          sendingDone = true;
          break;
        }
        const message = next();
        const pingCount = message.pings.filter(Boolean).length;
        planned += message.ends.length + pingCount + 1 + pingCount;
        counts.messages++;
        counts.framesSent += message.ends.length + pingCount;
        counts.bytesSent += message.payload.length;
        counts.textMessages += message.text ? 1 : 0;
        counts.sizeClasses[sizeClass(message.payload.length)]++;
        counts.pingsSent += pingCount;
        if (message.ends.length > 1) {
          counts.fragmentedMessages++;
          counts.fragments += message.ends.length;
          counts.splitsInsideCharacter += message.inside;
        }
        expected.push(message);
        inFlight++;
        let start = 0;
        for (let k = 0; k < message.ends.length; k++) {
          const end = message.ends[k];
          const b = boundaryIndex(end - start);
          if (b >= 0) counts.boundarySent[b]++;
          ws.send(message.payload.subarray(start, end), { binary: !message.text, fin: k === message.ends.length - 1, compress: deflate });
          start = end;
          const ping = message.pings[k];
          if (ping && k < message.ends.length - 1) {
            const sequence = ping.readBigInt64LE(0);
            message.lastPing = sequence;
            pings.push({ sequence, payload: ping });
            ws.ping(ping);
          }
        }
      }
      if (sendingDone && expected.length === 0 && !failed) ws.close(1000);
    };

    ws.on('open', () => {
      counts.connections++;
      const mismatch = deflate ? checkAndCountDeflate(ws, variant) : null;
      if (mismatch) return stop(mismatch); // a deflate soak must not run uncompressed
      pump();
    });
    ws.on('pong', (data) => {
      lastActivity = Date.now();
      counts.framesReceived++;
      counts.pongsReceived++;
      while (pings.length > 0) {
        const ping = pings.shift();
        counts.pingsAnswered++;
        if (ping.payload.equals(data)) {
          answered = ping.sequence;
          return;
        }
      }
      stop(`a Pong of ${data.length} B matches no Ping sent`);
    });
    ws.on('message', (data, isBinary) => {
      lastActivity = Date.now();
      const message = expected.shift();
      counts.framesReceived++;
      counts.bytesReceived += data.length;
      const b = boundaryIndex(data.length);
      if (b >= 0) counts.boundaryReceived[b]++;
      if (!message) return stop(`an echo of ${data.length} B arrived with no message in flight`);
      if (isBinary === message.text) return stop(`message ${message.index}: echoed as ${isBinary ? 'binary' : 'text'}`);
      if (!data.equals(message.payload)) return stop(`message ${message.index} (${message.text ? 'text' : 'binary'}, ${message.payload.length} B): the echo differs from what was sent`);
      if (answered < message.lastPing) return stop(`message ${message.index}: echoed before the Pong of its Ping ${message.lastPing}`);
      counts.messagesVerified++;
      inFlight--;
      pump();
    });
    ws.on('error', (error) => stop(`error: ${error.message}`));
    ws.on('close', (code) => {
      if (!failed && (code !== 1000 || expected.length > 0 || pings.length > 0)) {
        fail(name, `closed with ${code}, ${expected.length} echoes and ${pings.length} Pongs missing`);
      }
      finish();
    });
  });
}

const runs = [];
for (let c = 0; c < connections; c++) runs.push(runConnection(first + c, c));
await Promise.all(runs);
process.stdout.write(JSON.stringify(counts) + '\n');
process.exit(counts.failures === 0 ? 0 : 1);
