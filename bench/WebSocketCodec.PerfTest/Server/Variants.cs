namespace WebSocketCodec.PerfTest;

/// <summary>The servers the perf tool compares.</summary>
public static class Variants
{
    /// <summary>Ours, callbacks API with the frame factory, on the ConnectionHandler fast path.</summary>
    public const string Ours = "ours";

    /// <summary>Ours, a read's echoes written by the bulk encoder, fast path.</summary>
    public const string OursBulk = "ours-bulk";

    /// <summary>Ours, message API (span callback), fast path.</summary>
    public const string OursMessages = "ours-messages";

    /// <summary>Ours, callbacks API, on the AspNetCore endpoint (HTTP upgrade stream).</summary>
    public const string OursEndpoint = "ours-endpoint";

    /// <summary>Ours, message API, on the AspNetCore endpoint: what <c>samples/EchoServer</c> runs (the sample with
    /// Kestrel's tuning: <c>ours-endpoint-messages+tuned</c>).</summary>
    public const string OursEndpointMessages = "ours-endpoint-messages";

    /// <summary>Kestrel + ASP.NET Core WebSockets (ManagedWebSocket).</summary>
    public const string AspNetCore = "aspnetcore";

    /// <summary>Kestrel connection handler echoing the wire bytes: the transport's limit.</summary>
    public const string Raw = "raw";

    /// <summary>The same byte echo behind Kestrel's HTTP/1.1 upgrade stream: the endpoint path's limit.</summary>
    public const string RawUpgrade = "raw-upgrade";

    /// <summary>The variants that run over HTTP/2 (endpoints; <c>raw-upgrade</c> is then <c>raw-h2</c>, a byte echo
    /// on the extended CONNECT stream).</summary>
    public static IReadOnlyList<string> OverHttp2 { get; } = [OursEndpoint, OursEndpointMessages, AspNetCore, RawUpgrade];

    public static IReadOnlyList<string> All { get; } =
        [Ours, OursBulk, OursMessages, OursEndpoint, OursEndpointMessages, AspNetCore, Raw, RawUpgrade];

    /// <summary>The suffix of a Kestrel variant run with <c>AddKestrelWebSocketTuning</c> (large pinned blocks):
    /// <c>ours-endpoint+tuned</c>. <c>+tuned-inline</c> adds inline scheduling.</summary>
    public const string Tuned = "+tuned";

    /// <summary>The tuning suffix with Kestrel's inline scheduling on too.</summary>
    public const string TunedInline = "+tuned-inline";

    /// <summary>Every Kestrel variant with each tuning suffix.</summary>
    public static IReadOnlyList<string> AllTuned { get; } = [.. All.Select(v => v + Tuned), .. All.Select(v => v + TunedInline)];

    /// <summary><paramref name="variant"/> without its tuning suffix, and which tuning it names (null: none).</summary>
    public static (string Variant, string? Tuning) SplitTuning(string variant) =>
        variant.EndsWith(TunedInline, StringComparison.Ordinal) ? (variant[..^TunedInline.Length], TunedInline)
        : variant.EndsWith(Tuned, StringComparison.Ordinal) ? (variant[..^Tuned.Length], Tuned)
        : (variant, null);

    /// <summary>Ours on the lean transport (<c>WebSocketCodec.Lean</c>: an epoll loop, one shared receive buffer),
    /// callbacks API with the frame factory, as <see cref="Ours"/>.</summary>
    public const string Lean = "lean";

    /// <summary>Ours on the lean transport, message API (span callback): what <c>samples/EchoServer --transport lean</c>
    /// runs.</summary>
    public const string LeanMessages = "lean-messages";

    /// <summary>The lean transport's variants (HTTP/1.1, TLS too; Linux). Not part of <c>all</c> (no Kestrel tuning
    /// applies).</summary>
    public static IReadOnlyList<string> OnLean { get; } = [Lean, LeanMessages];

    /// <summary>Bun 1.4.4's websocket echo (uWebSockets; <c>Peers/bun-echo.js</c>, Bun installed from npm on first
    /// use): the fastest websocket server in the field.</summary>
    public const string Bun = "bun";

    /// <summary>A C epoll byte echo (<c>Peers/epoll-echo.c</c>, compiled with gcc on first use): 64 KiB reads, one send
    /// per read, the physical limit of this machine's loopback.</summary>
    public const string EpollEcho = "c-epoll";

    /// <summary>The servers outside .NET (<see cref="PeerServers"/>), over HTTP/1.1 without TLS; <c>--variants peers</c>
    /// names them. Not part of <c>all</c> (they need npm and gcc).</summary>
    public static IReadOnlyList<string> Peers { get; } = [Bun, EpollEcho];

    /// <summary>Ours as SpanNetty channel handlers (callbacks echo of every frame).</summary>
    public const string OursSpanNetty = "ours-spannetty";

    /// <summary>Ours as SpanNetty channel handlers, message API.</summary>
    public const string OursSpanNettyMessages = "ours-spannetty-messages";

    /// <summary>SpanNetty's own websocket codec, echoes written per frame and flushed once per read (the fast way).</summary>
    public const string SpanNettyBuiltin = "spannetty-builtin";

    /// <summary>SpanNetty's own codec flushed per frame, as its examples do.</summary>
    public const string SpanNettyBuiltinFlush = "spannetty-builtin-flush";

    /// <summary>A SpanNetty byte echo of the same frames: SpanNetty's transport limit.</summary>
    public const string SpanNettyRaw = "spannetty-raw";

    /// <summary>The variants served by <c>samples/SpanNettyEchoServer</c> (built with <c>-p:WithSpanNetty=true</c>);
    /// <c>--variants spannetty</c> names them all. Not part of <c>all</c>.</summary>
    public static IReadOnlyList<string> OnSpanNetty { get; } =
        [OursSpanNetty, OursSpanNettyMessages, SpanNettyBuiltin, SpanNettyBuiltinFlush, SpanNettyRaw];

    /// <summary>Ours over SpanNetty's HTTP/2 streams (extended CONNECT, callbacks echo), served by the SpanNetty echo
    /// server's <c>ours-h2</c> codec.</summary>
    public const string SpanNettyH2 = "spannetty-h2";

    /// <summary>A SpanNetty HTTP/2 server whose streams echo their DATA bytes (extended CONNECT answered 200, no websocket
    /// framing): the ceiling for websockets over SpanNetty's HTTP/2.</summary>
    public const string SpanNettyH2Raw = "spannetty-h2-raw";

    /// <summary>The SpanNetty variants over HTTP/2 (<c>--h2</c>; <c>--variants spannetty</c> names them all there; every
    /// websocket a stream of one HTTP/2 connection, <c>--connections</c> of them). Not part of <c>all</c>.</summary>
    public static IReadOnlyList<string> OnSpanNettyHttp2 { get; } = [SpanNettyH2, SpanNettyH2Raw];

    /// <summary>Whether the SpanNetty echo server serves <paramref name="variant"/>.</summary>
    public static bool IsSpanNetty(string variant) => OnSpanNetty.Contains(variant) || OnSpanNettyHttp2.Contains(variant);

    /// <summary>The SpanNetty echo server's <c>--codec</c> for a SpanNetty variant.</summary>
    public static string SpanNettyCodec(string variant) => variant switch
    {
        OursSpanNetty => "ours-frames",
        OursSpanNettyMessages => "ours",
        SpanNettyBuiltin => "builtin",
        SpanNettyBuiltinFlush => "builtin-flush",
        SpanNettyRaw => "raw",
        SpanNettyH2 => "ours-h2",
        SpanNettyH2Raw => "raw-h2",
        _ => throw new ArgumentException($"'{variant}' is not a SpanNetty variant.", nameof(variant)),
    };
}
