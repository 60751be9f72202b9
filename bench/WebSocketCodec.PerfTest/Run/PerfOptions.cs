namespace WebSocketCodec.PerfTest;

/// <summary>What to measure.</summary>
public sealed record PerfOptions
{
    public IReadOnlyList<string> Variants { get; init; } = [PerfTest.Variants.Ours, PerfTest.Variants.AspNetCore, PerfTest.Variants.Raw];

    /// <summary>Payload bytes (at least 8: the timestamp).</summary>
    public int Payload { get; init; } = 64;

    /// <summary>Frames in flight per connection (refilled at half).</summary>
    public int Window { get; init; } = 256;

    public int Connections { get; init; } = 1;

    public bool Tls { get; init; }

    /// <summary>Websockets as HTTP/2 streams (extended CONNECT), all on one connection.</summary>
    public bool Http2 { get; init; }

    public TimeSpan Warmup { get; init; } = TimeSpan.FromSeconds(3);

    public TimeSpan Duration { get; init; } = TimeSpan.FromSeconds(10);

    /// <summary>The load client: <see cref="LoadClients.Pipelined"/> (our frame pump, for every variant) or
    /// <see cref="LoadClients.ClientWebSocket"/> (.NET's own client, one message per <c>SendAsync</c>; websocket servers
    /// only).</summary>
    public string Client { get; init; } = LoadClients.Pipelined;

    /// <summary>SpanNetty's transport for the SpanNetty variants: socket or libuv.</summary>
    public string SpanNettyTransport { get; init; } = "socket";

    /// <summary>permessage-deflate (see <see cref="DeflateMode"/>): JSON text, compressed by the servers.</summary>
    public bool Deflate { get; init; }

    /// <summary>With <see cref="Deflate"/>: whether the client lets both sides keep their context (off: it offers
    /// <c>server_no_context_takeover; client_no_context_takeover</c>).</summary>
    public bool ContextTakeover { get; init; } = true;

    /// <summary>Also take the server's memory (after a forced compacting collection) before the websockets open and
    /// with all of them open, for RSS and heap per websocket.</summary>
    public bool Memory { get; init; }

    /// <summary>With <see cref="Deflate"/>: our variants' compression level, <see cref="DeflateMode.Optimal"/> (zlib's 6,
    /// as ASP.NET Core) or <see cref="DeflateMode.Fastest"/>.</summary>
    public string DeflateLevel { get; init; } = DeflateMode.Optimal;

    /// <summary>With <see cref="Deflate"/> and <see cref="Memory"/>: the compressed messages each websocket exchanges
    /// before the memory is taken (see <see cref="DeflateScale"/>).</summary>
    public int PrimeMessages { get; init; } = 4;

    /// <summary>Pin the server to core 0 and this process to core 1 (off for smoke runs inside a test host).</summary>
    public bool Pin { get; init; } = true;
}

/// <summary>The load clients.</summary>
public static class LoadClients
{
    public const string Pipelined = "pipelined";

    public const string ClientWebSocket = "clientwebsocket";

    public static IReadOnlyList<string> All { get; } = [Pipelined, ClientWebSocket];
}
