using System.Net;
using System.Net.Security;
using System.Net.Sockets;
using WebSocketCodec.Lean;

namespace WebSocketCodec.Samples.EchoServer;

/// <summary>The echo server on the lean transport (<c>--transport lean</c>, Linux): <c>/echo</c> over HTTP/1.1
/// upgrades only (no page, no HTTP/2: that is Kestrel's), the same echo listener and options as on Kestrel.</summary>
public sealed class LeanEchoServerHost : IAsyncDisposable
{
    private readonly LeanWebSocketServer _server;

    private LeanEchoServerHost(LeanWebSocketServer server) => _server = server;

    /// <summary>The websocket URL of the echo, e.g. <c>ws://127.0.0.1:8080/echo</c>.</summary>
    public Uri Url => _server.Uri;

    /// <summary>The bound endpoint (useful with port 0).</summary>
    public IPEndPoint EndPoint => _server.EndPoint;

    /// <summary>The server (open websockets...).</summary>
    public LeanWebSocketServer Server => _server;

    /// <summary>Starts the server.</summary>
    /// <exception cref="IOException">The address cannot be listened on (the port is taken...).</exception>
    /// <exception cref="ArgumentException">Not an IP address, or not on Linux.</exception>
    public static LeanEchoServerHost Start(EchoServerOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        if (options.Codec != "ours")
        {
            throw new ArgumentException("--transport lean serves our codec only (--codec builtin runs on Kestrel).", nameof(options));
        }

        if (!LeanWebSocketServer.IsSupported)
        {
            throw new ArgumentException("--transport lean runs on Linux only (epoll); use --transport kestrel here.", nameof(options));
        }

        IPAddress address = SampleHosting.ParseAddress(options.Host);
        var accept = new WebSocketAcceptOptions();
        options.ConfigureAccept(accept);
        var lean = new LeanWebSocketServerOptions
        {
            EndPoint = new IPEndPoint(address, options.Port),
            Accept = accept,
            Path = EchoServerHost.EchoPath,
            Tls = options.Tls
                ? new SslServerAuthenticationOptions
                {
                    ServerCertificate = SelfSignedCertificate.Create(),
                    ApplicationProtocols = [SslApplicationProtocol.Http11],
                }
                : null,
            OnError = error => Console.Error.WriteLine($"error: {error.Message}"),
        };
        try
        {
            return new LeanEchoServerHost(LeanWebSocketServer.Start(lean, (_, sender) => OurEcho.Listener(sender)));
        }
        catch (SocketException error)
        {
            throw new IOException($"{lean.EndPoint}: {error.Message}", error);
        }
    }

    /// <summary>Waits for Ctrl+C, SIGTERM or <paramref name="cancellationToken"/>.</summary>
    [System.Diagnostics.CodeAnalysis.SuppressMessage("Performance", "CA1822", Justification = "An instance member, as the Kestrel host's.")]
    public Task WaitForShutdownAsync(CancellationToken cancellationToken = default) => LeanSignals.WaitAsync(cancellationToken);

    /// <summary>Stops gracefully: open websockets get Close 1001 first.</summary>
    public ValueTask DisposeAsync() => _server.DisposeAsync();
}
