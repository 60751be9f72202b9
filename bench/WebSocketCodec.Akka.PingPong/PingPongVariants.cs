namespace WebSocketCodec.Akka.PingPong;

/// <summary>The transports RemotePingPong compares, by name, and the HOCON that selects each.</summary>
public static class PingPongVariants
{
    /// <summary>Akka's default DotNetty TCP transport with its default batching (<c>batching.enabled = true</c>,
    /// <c>max-pending-writes = 30</c>).</summary>
    public const string DotNetty = "dotnetty";

    /// <summary>DotNetty TCP with <c>akka.remote.dot-netty.tcp.batching.enabled = false</c>: every write flushed at
    /// once. With <see cref="DotNetty"/>, the other candidate for the baseline (the better of the two per client count).</summary>
    public const string DotNettyNoBatching = "dotnetty-nobatch";

    /// <summary>DotNetty TCP with <c>enable-ssl</c> (a self-signed certificate made at start).</summary>
    public const string DotNettyTls = "dotnetty-tls";

    /// <summary>Our websocket transport over HTTP/1.1.</summary>
    public const string WebSocket = "ws";

    /// <summary>Our websocket transport, associations as HTTP/2 streams (h2c prior knowledge).</summary>
    public const string WebSocketHttp2 = "ws-h2";

    /// <summary>Our websocket transport over TLS.</summary>
    public const string WebSocketTls = "wss";

    /// <summary>The in-process loopback transport of this tool: the ceiling.</summary>
    public const string Loopback = "loopback";

    /// <summary>The DotNetty TCP variants the baseline is chosen from (per client count, the better median).</summary>
    public static readonly IReadOnlyList<string> Baselines = [DotNetty, DotNettyNoBatching];

    /// <summary>Every variant, in the order of the first repeat (each later repeat starts one further on).</summary>
    public static readonly IReadOnlyList<string> All = [DotNetty, DotNettyNoBatching, DotNettyTls, WebSocket, WebSocketHttp2, WebSocketTls, Loopback];

    /// <summary>Whether the variant needs the TLS certificate.</summary>
    public static bool UsesTls(string variant) => variant is DotNettyTls or WebSocketTls;

    /// <summary>The <c>akka.remote</c> part of a system's HOCON for <paramref name="variant"/>.</summary>
    public static string RemoteConfig(string variant, TestCertificate? certificate) => variant switch
    {
        DotNetty => """
            akka.remote.enabled-transports = ["akka.remote.dot-netty.tcp"]
            akka.remote.dot-netty.tcp { hostname = "127.0.0.1", port = 0 }
            """,
        DotNettyNoBatching => """
            akka.remote.enabled-transports = ["akka.remote.dot-netty.tcp"]
            akka.remote.dot-netty.tcp { hostname = "127.0.0.1", port = 0, batching.enabled = false }
            """,
        DotNettyTls => $$"""
            akka.remote.enabled-transports = ["akka.remote.dot-netty.tcp"]
            akka.remote.dot-netty.tcp {
              hostname = "127.0.0.1"
              port = 0
              enable-ssl = true
              ssl {
                suppress-validation = true
                require-mutual-authentication = false
                certificate { path = {{Quote(Need(certificate).Path)}}, password = {{Quote(Need(certificate).Password)}} }
              }
            }
            """,
        WebSocket => WebSocketConfig(""),
        WebSocketHttp2 => WebSocketConfig("http2 = on"),
        WebSocketTls => WebSocketConfig($$"""
            tls {
              enabled = on
              certificate { path = {{Quote(Need(certificate).Path)}}, password = {{Quote(Need(certificate).Password)}} }
              suppress-validation = on
            }
            """),
        Loopback => """
            akka.remote.enabled-transports = ["akka.remote.loopback"]
            akka.remote.loopback {
              transport-class = "WebSocketCodec.Akka.PingPong.Loopback.LoopbackTransport, WebSocketCodec.Akka.PingPong"
              applied-adapters = []
              hostname = "127.0.0.1"
              port = 0
            }
            """,
        _ => throw new ArgumentOutOfRangeException(nameof(variant), variant, "unknown variant"),
    };

    private static string WebSocketConfig(string extra) => $$"""
        akka.remote.enabled-transports = ["akka.remote.websocket"]
        akka.remote.websocket {
          transport-class = "WebSocketCodec.Akka.WebSocketTransport, WebSocketCodec.Akka"
          hostname = "127.0.0.1"
          port = 0
          {{extra}}
        }
        """;

    private static TestCertificate Need(TestCertificate? certificate) =>
        certificate ?? throw new InvalidOperationException("the TLS variants need the certificate");

    private static string Quote(string value) => "\"" + value.Replace("\\", "\\\\", StringComparison.Ordinal).Replace("\"", "\\\"", StringComparison.Ordinal) + "\"";
}
