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

    /// <summary>Ours, message API, on the AspNetCore endpoint: what <c>samples/EchoServer</c> runs.</summary>
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
}
