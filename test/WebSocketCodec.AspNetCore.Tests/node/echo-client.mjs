// node's ws as a client: for each size, one text and one binary message, each echo compared byte for byte, then a
// Close 1000. Usage: node echo-client.mjs <url> <size,size,...>. Prints "ok <n>" and exits 0, or the error and 1.
import WebSocket from 'ws';

const [url, sizesArgument] = process.argv.slice(2);
const sizes = sizesArgument.split(',').map(Number);
setTimeout(() => { console.error('timeout'); process.exit(2); }, 20000).unref();

const socket = new WebSocket(url, { rejectUnauthorized: false, perMessageDeflate: false });
const received = [];
let wake = null;
socket.on('message', (data, isBinary) => { received.push({ data, isBinary }); if (wake) { wake(); wake = null; } });
const next = async () => {
  while (received.length === 0) await new Promise(resolve => { wake = resolve; });
  return received.shift();
};

try {
  await new Promise((resolve, reject) => { socket.once('open', resolve); socket.once('error', reject); });
  let count = 0;
  for (const size of sizes) {
    const text = 'κόσμε grüße '.repeat(size).slice(0, size >> 1);
    socket.send(text);
    const t = await next();
    if (t.isBinary || t.data.toString('utf8') !== text) throw new Error(`text of ${size} differs`);
    const bytes = Buffer.alloc(size);
    for (let i = 0; i < size; i++) bytes[i] = (i * 31 + size) & 255;
    socket.send(bytes);
    const b = await next();
    if (!b.isBinary || !Buffer.from(b.data).equals(bytes)) throw new Error(`binary of ${size} differs`);
    count += 2;
  }
  const closed = new Promise(resolve => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  socket.close(1000, 'bye');
  const { code } = await closed;
  if (code !== 1000) throw new Error(`closed with ${code}`);
  console.log(`ok ${count}`);
  process.exit(0);
} catch (error) {
  console.error(String(error && error.stack || error));
  process.exit(1);
}
