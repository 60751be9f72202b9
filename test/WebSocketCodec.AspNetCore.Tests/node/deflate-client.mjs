// node's ws as a permessage-deflate client. Usage:
//   node deflate-client.mjs <url> <perMessageDeflate as JSON, or false> <size,size,...> <many>
// For each size, one text message (words: compressible) and one binary message (a byte pattern), each sent after the
// previous echo came back and compared byte for byte; then <many> short distinct messages sent back to back and
// checked in order; then a Close 1000. Prints one JSON line: what was negotiated (the 101's Sec-WebSocket-Extensions,
// ws.extensions, the parameters ws settled), for every message whether ws compressed it and whether its echo arrived
// compressed (RSV1), and the bytes on the socket. Exits 0 when every echo matched, 1 otherwise.
//
// ws exposes no per-frame RSV1, so the per-message-deflate instance's compress and decompress are wrapped: ws calls
// compress only for a message it sends with RSV1, and decompress only for frames that arrived with RSV1.
import WebSocket from 'ws';

const [url, deflateArgument, sizesArgument, manyArgument] = process.argv.slice(2);
const perMessageDeflate = JSON.parse(deflateArgument);
const sizes = sizesArgument.split(',').filter(s => s !== '').map(Number);
const many = Number(manyArgument);
setTimeout(() => { console.error('timeout'); process.exit(2); }, 50000).unref();

const words = ['lorem', 'ipsum', 'dolor', 'sit', 'amet', 'κόσμε', 'grüße', 'consectetur', 'adipiscing', 'elit'];
const text = size => {
  let s = '';
  for (let i = 0; s.length < size; i++) s += words[(i * 7 + (i >> 3)) % words.length] + ' ';
  return Buffer.from(s).subarray(0, size).toString('utf8').replace(/\uFFFD+$/, ''); // whole characters only
};
const binary = size => {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = (i % 251) ^ ((i >> 10) & 255);
  return bytes;
};

let header;
const socket = new WebSocket(url, { perMessageDeflate });
socket.on('upgrade', response => { header = response.headers['sec-websocket-extensions']; });
let compressedSent = 0;
let compressedReceived = 0;
const received = [];
let wake = null;
socket.on('message', (data, isBinary) => {
  received.push({ data: Buffer.from(data), isBinary, compressed: compressedReceived });
  if (wake) { wake(); wake = null; }
});
const next = async () => {
  while (received.length === 0) await new Promise(resolve => { wake = resolve; });
  return received.shift();
};

const report = { messages: [] };
try {
  await new Promise((resolve, reject) => { socket.once('open', resolve); socket.once('error', reject); });
  report.header = header ?? null;
  report.extensions = socket.extensions;
  const extension = socket._extensions['permessage-deflate'];
  report.params = extension ? extension.params : null;
  if (extension) {
    const compress = extension.compress.bind(extension);
    extension.compress = (data, fin, callback) => { if (fin) compressedSent++; compress(data, fin, callback); };
    const decompress = extension.decompress.bind(extension);
    extension.decompress = (data, fin, callback) => { if (fin) compressedReceived++; decompress(data, fin, callback); };
  }

  let before = 0;
  const roundTrip = async (message, isBinary) => {
    const sentBefore = compressedSent;
    socket.send(message, { binary: isBinary });
    const echo = await next();
    const bytes = isBinary ? message : Buffer.from(message, 'utf8');
    const ok = echo.isBinary === isBinary && echo.data.equals(bytes);
    report.messages.push({ size: bytes.length, binary: isBinary, ok, sentCompressed: compressedSent > sentBefore, receivedCompressed: echo.compressed > before });
    before = echo.compressed;
    if (!ok) throw new Error(`the echo of a ${isBinary ? 'binary' : 'text'} message of ${bytes.length} bytes differs`);
  };
  for (const size of sizes) {
    await roundTrip(text(size), false);
    await roundTrip(binary(size), true);
  }

  // Many messages back to back, each distinct, checked in order.
  const sent = [];
  for (let i = 0; i < many; i++) {
    const message = `${i}: ` + text(40 + (i % 300));
    sent.push(message);
    socket.send(message);
  }
  let inOrder = 0;
  for (const message of sent) {
    const echo = await next();
    if (echo.isBinary || echo.data.toString('utf8') !== message) throw new Error(`message ${inOrder} of ${many} came back wrong`);
    inOrder++;
  }
  report.many = inOrder;
  report.compressedSent = compressedSent;
  report.compressedReceived = compressedReceived;

  report.bytesWritten = socket._socket.bytesWritten;
  report.bytesRead = socket._socket.bytesRead;
  const closed = new Promise(resolve => socket.once('close', code => resolve(code)));
  socket.close(1000, 'bye');
  report.closeCode = await closed;
  console.log(JSON.stringify(report));
  process.exit(report.closeCode === 1000 ? 0 : 1);
} catch (error) {
  report.error = String(error && error.stack || error);
  console.log(JSON.stringify(report));
  process.exit(1);
}
