namespace WebSocketCodec.Soak;

/// <summary>What the soak runs.</summary>
public sealed record SoakOptions
{
    /// <summary>Our client over HTTP/1.1, cleartext.</summary>
    public const string H1 = "h1";

    /// <summary>Our client over HTTP/1.1, TLS.</summary>
    public const string H1Tls = "h1-tls";

    /// <summary>Our client over HTTP/2 streams (h2c, prior knowledge).</summary>
    public const string H2 = "h2";

    /// <summary>Our client over HTTP/2 streams, TLS (ALPN h2).</summary>
    public const string H2Tls = "h2-tls";

    /// <summary>node's ws client, cleartext.</summary>
    public const string Node = "node";

    /// <summary>node's ws client, TLS.</summary>
    public const string NodeTls = "node-tls";

    /// <summary>Our client over HTTP/1.1, cleartext, offering permessage-deflate (the websocket fails unless it is
    /// negotiated).</summary>
    public const string H1Deflate = "h1-deflate";

    /// <summary>Our client over HTTP/2 streams (h2c), offering permessage-deflate.</summary>
    public const string H2Deflate = "h2-deflate";

    /// <summary>node's ws client, cleartext, with permessage-deflate (threshold 0: every message compressed).</summary>
    public const string NodeDeflate = "node-deflate";

    /// <summary>Our client over HTTP/1.1 against the SpanNetty echo server (<c>samples/SpanNettyEchoServer</c>, our
    /// codec on SpanNetty), cleartext; only in a build with <c>-p:WithSpanNetty=true</c>.</summary>
    public const string SpanNetty = "spannetty";

    /// <summary>Our client over HTTP/2 streams (h2c) against the SpanNetty echo server; only with
    /// <c>-p:WithSpanNetty=true</c>.</summary>
    public const string SpanNettyH2 = "spannetty-h2";

    /// <summary>Every transport, in report order (the SpanNetty ones only in a build with them).</summary>
    public static IReadOnlyList<string> AllTransports { get; } =
#if WITH_SPANNETTY
        [H1, H1Tls, H2, H2Tls, Node, NodeTls, H1Deflate, H2Deflate, NodeDeflate, SpanNetty, SpanNettyH2];
#else
        [H1, H1Tls, H2, H2Tls, Node, NodeTls, H1Deflate, H2Deflate, NodeDeflate];
#endif

    /// <summary>Every transport any build knows, in report order (a report may be written by a build without SpanNetty
    /// from a state that ran with it).</summary>
    public static IReadOnlyList<string> KnownTransports { get; } = [H1, H1Tls, H2, H2Tls, Node, NodeTls, H1Deflate, H2Deflate, NodeDeflate, SpanNetty, SpanNettyH2];

    /// <summary>Whether <paramref name="transport"/> runs against the SpanNetty echo server.</summary>
    public static bool IsSpanNetty(string transport) => transport is SpanNetty or SpanNettyH2;

    /// <summary>Whether <paramref name="transport"/> is node's ws client.</summary>
    public static bool IsNode(string transport) => transport is Node or NodeTls or NodeDeflate;

    /// <summary>Whether <paramref name="transport"/> offers permessage-deflate (and must get it).</summary>
    public static bool IsDeflate(string transport) => transport is H1Deflate or H2Deflate or NodeDeflate;

    /// <summary>Frames in the whole run (sent and received, data and control).</summary>
    public long Frames { get; init; } = 100_000_000;

    /// <summary>The seed of all traffic.</summary>
    public ulong Seed { get; init; } = 1;

    /// <summary>Frames per segment: each segment opens fresh websockets and ends with the pool check.</summary>
    public long SegmentFrames { get; init; } = 5_000_000;

    /// <summary>Websockets per segment, spread over the transports in turn (default: two per transport of the build).</summary>
    public int Connections { get; init; } = 2 * AllTransports.Count;

    /// <summary>Messages in flight per websocket.</summary>
    public int Window { get; init; } = 16;

    /// <summary>Every how many messages one has a boundary length.</summary>
    public int BoundaryEvery { get; init; } = 16;

    /// <summary>The transports to run.</summary>
    public IReadOnlyList<string> Transports { get; init; } = AllTransports;

    /// <summary>Where completed segments are recorded (resumable); null: not recorded.</summary>
    public string? StatePath { get; init; }

    /// <summary>Where the markdown report goes; null: none.</summary>
    public string? ReportPath { get; init; }

    /// <summary>A segment fails when no frame arrives anywhere for this long.</summary>
    public TimeSpan StallTimeout { get; init; } = TimeSpan.FromSeconds(60);

    /// <summary>The folder of the node client (package.json, soak-client.mjs); npm ci runs there when ws is missing.</summary>
    public string NodeDirectory { get; init; } = Path.Combine(AppContext.BaseDirectory, "soak-node");
}
