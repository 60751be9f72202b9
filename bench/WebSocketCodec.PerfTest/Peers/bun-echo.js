// A Bun (uWebSockets) websocket echo for the perf and scale tools: every message is sent back as it came (text or
// binary), no compression, no idle timeout. The tools' server protocol: prints "port N" on stdout; answers "gc" on
// stdin with zero counts (no .NET heap here) and "memory" with the process's RSS and JavaScript heap after a full
// collection; exits when stdin ends. With "--tls CERT.pem KEY.pem" it serves over TLS with that certificate.
const tlsAt = process.argv.indexOf("--tls");
const tls = tlsAt >= 0 ? { cert: Bun.file(process.argv[tlsAt + 1]), key: Bun.file(process.argv[tlsAt + 2]) } : undefined;
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  tls,
  fetch(request, server) {
    if (server.upgrade(request)) {
      return undefined;
    }
    return new Response("websocket only", { status: 426 });
  },
  websocket: {
    perMessageDeflate: false,
    idleTimeout: 0,
    maxPayloadLength: 16 * 1024 * 1024,
    backpressureLimit: 64 * 1024 * 1024,
    message(ws, message) {
      ws.send(message);
    },
  },
});

process.stdout.write(`port ${server.port}\n`);

let pending = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  pending += chunk;
  let newline;
  while ((newline = pending.indexOf("\n")) >= 0) {
    const command = pending.slice(0, newline).trim();
    pending = pending.slice(newline + 1);
    if (command === "gc") {
      process.stdout.write("gc 0 0 0 0 -\n");
    } else if (command === "memory") {
      Bun.gc(true);
      const memory = process.memoryUsage();
      process.stdout.write(`memory rss=${memory.rss} heap=${memory.heapUsed} committed=${memory.heapTotal} gc=none concurrent=False heaps=0\n`);
    }
  }
});
process.stdin.on("end", () => process.exit(0));
