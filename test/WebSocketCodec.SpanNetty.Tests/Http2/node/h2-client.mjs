// Node's http2 module as an RFC 8441 client: waits for SETTINGS_ENABLE_CONNECT_PROTOCOL, opens <streams> websockets
// as extended CONNECT streams of one connection, echoes a text and a binary message of each size on every stream
// (frames masked here, the server's decoded here), closes each with 1000 and expects the server's Close then
// END_STREAM. Also checks the refusals of a wrong version and of a classic CONNECT.
// Usage: node h2-client.mjs <http(s)://host:port> <path> <streams> <size,size,...>
// Prints "ok <streams> <messages>" and exits 0, or the error and 1.
import http2 from 'node:http2';
import crypto from 'node:crypto';

const [base, path, streamsArgument, sizesArgument] = process.argv.slice(2);
const streams = Number(streamsArgument);
const sizes = sizesArgument.split(',').map(Number);
setTimeout(() => { console.error('timeout'); process.exit(2); }, 60000).unref();
const url = new URL(base);

function frame(opcode, payload) {
  const length = payload.length;
  const header = length < 126 ? Buffer.from([0x80 | opcode, 0x80 | length])
    : length < 65536 ? Buffer.from([0x80 | opcode, 0x80 | 126, length >> 8, length & 255])
    : Buffer.concat([Buffer.from([0x80 | opcode, 0x80 | 127]), (() => { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(length)); return b; })()]);
  const mask = crypto.randomBytes(4);
  const masked = Buffer.alloc(length);
  for (let i = 0; i < length; i++) masked[i] = payload[i] ^ mask[i & 3];
  return Buffer.concat([header, mask, masked]);
}

// Reads the server's (unmasked) frames from a stream.
function frameReader(stream) {
  let buffered = Buffer.alloc(0);
  let ended = false;
  let wake = null;
  stream.on('data', chunk => { buffered = Buffer.concat([buffered, chunk]); if (wake) { wake(); wake = null; } });
  stream.on('end', () => { ended = true; if (wake) { wake(); wake = null; } });
  return {
    async next() {
      while (true) {
        if (buffered.length >= 2) {
          if (buffered[1] & 0x80) throw new Error('the server masked a frame');
          let length = buffered[1] & 127, offset = 2;
          if (length === 126) { if (buffered.length < 4) { length = -1; } else { length = buffered.readUInt16BE(2); offset = 4; } }
          else if (length === 127) { if (buffered.length < 10) { length = -1; } else { length = Number(buffered.readBigUInt64BE(2)); offset = 10; } }
          if (length >= 0 && buffered.length >= offset + length) {
            const result = { fin: (buffered[0] & 0x80) !== 0, opcode: buffered[0] & 15, payload: buffered.subarray(offset, offset + length) };
            buffered = buffered.subarray(offset + length);
            return result;
          }
        }
        if (ended) return null;
        await new Promise(resolve => { wake = resolve; });
      }
    },
  };
}

function open(session, headers) {
  const request = session.request({
    ':method': 'CONNECT', ':protocol': 'websocket', ':scheme': url.protocol.slice(0, -1), ':path': path,
    ':authority': url.host, 'sec-websocket-version': '13', ...headers,
  }, { endStream: false });
  return new Promise((resolve, reject) => {
    request.once('response', responseHeaders => resolve({ request, headers: responseHeaders }));
    request.once('error', reject);
  });
}

async function echoStream(session, index) {
  const { request, headers } = await open(session, {});
  if (headers[':status'] !== 200) throw new Error(`stream ${index}: status ${headers[':status']}`);
  const reader = frameReader(request);
  let messages = 0;
  for (const size of sizes) {
    const text = Buffer.from('κόσμε grüße '.repeat(size + 1)).subarray(0, size);
    const valid = Buffer.from(text.toString('utf8').replace(/\uFFFD/g, ''));
    request.write(frame(1, valid));
    const t = await reader.next();
    if (!t || t.opcode !== 1 || !t.payload.equals(valid)) throw new Error(`stream ${index}: text of ${size} differs`);
    const bytes = Buffer.alloc(size);
    for (let i = 0; i < size; i++) bytes[i] = (i * 31 + size + index) & 255;
    request.write(frame(2, bytes));
    const b = await reader.next();
    if (!b || b.opcode !== 2 || !b.payload.equals(bytes)) throw new Error(`stream ${index}: binary of ${size} differs`);
    messages += 2;
  }
  request.write(frame(8, Buffer.from([0x03, 0xe8, 0x62, 0x79, 0x65])));
  const close = await reader.next();
  if (!close || close.opcode !== 8 || close.payload.readUInt16BE(0) !== 1000) throw new Error(`stream ${index}: no Close 1000 back`);
  if (await reader.next() !== null) throw new Error(`stream ${index}: data after the Close`);
  request.end();
  return messages;
}

try {
  const session = http2.connect(base, { rejectUnauthorized: false });
  session.on('error', error => { console.error(String(error)); process.exit(1); });
  const settings = await new Promise(resolve => session.once('remoteSettings', resolve));
  if (settings.enableConnectProtocol !== true) throw new Error('the server did not send SETTINGS_ENABLE_CONNECT_PROTOCOL');

  const wrongVersion = await open(session, { 'sec-websocket-version': '8' });
  if (wrongVersion.headers[':status'] !== 400 || wrongVersion.headers['sec-websocket-version'] !== '13') {
    throw new Error(`version 8 got ${wrongVersion.headers[':status']} with version '${wrongVersion.headers['sec-websocket-version']}'`);
  }
  wrongVersion.request.close();

  const counts = await Promise.all(Array.from({ length: streams }, (_, i) => echoStream(session, i)));
  const messages = counts.reduce((a, b) => a + b, 0);

  // A classic CONNECT (no :protocol, no :path) is not a websocket: it is refused, and the connection goes on.
  const classic = session.request({ ':method': 'CONNECT', ':authority': url.host }, { endStream: false });
  const classicResult = await new Promise(resolve => {
    classic.once('response', headers => resolve(`status ${headers[':status']}`));
    classic.once('error', error => resolve(`reset ${error.code}`));
    classic.once('close', () => resolve(`reset ${classic.rstCode}`));
  });
  classic.close();
  if (classicResult === 'status 200') throw new Error('a classic CONNECT was accepted');
  console.log(`ok ${streams} ${messages} classic-connect: ${classicResult}`);
  session.close();
  process.exit(0);
} catch (error) {
  console.error(String(error && error.stack || error));
  process.exit(1);
}
