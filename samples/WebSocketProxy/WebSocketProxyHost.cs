using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.Hosting;
using WebSocketCodec.AspNetCore;
using WebSocketCodec.Samples.EchoServer;

namespace WebSocketCodec.Samples.WebSocketProxy;

/// <summary>A websocket gateway: accepts websockets over HTTP/1.1 and HTTP/2 on one port (TLS with ALPN, or cleartext
/// with prior knowledge) in handshake-only mode, and relays each, frames untouched, to an HTTP/1.1 backend.</summary>
public sealed class WebSocketProxyHost : IAsyncDisposable
{
    private readonly WebApplication _app;

    private WebSocketProxyHost(WebApplication app, Uri baseUrl)
    {
        _app = app;
        BaseUrl = baseUrl;
    }

    /// <summary>The proxy's base URL, e.g. <c>http://127.0.0.1:8081/</c>.</summary>
    public Uri BaseUrl { get; }

    /// <summary>The websocket URL of <paramref name="path"/> through the proxy.</summary>
    public Uri WebSocketUrl(string path) => new($"{(BaseUrl.Scheme == "https" ? "wss" : "ws")}://{BaseUrl.Authority}{path}");

    /// <summary>Builds and starts the proxy.</summary>
    public static async Task<WebSocketProxyHost> StartAsync(WebSocketProxyOptions options, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(options);
        if (options.Backend.Scheme != "ws")
        {
            throw new ArgumentException("The backend must be a ws:// URL (an HTTP/1.1 websocket server).", nameof(options));
        }

        WebApplication app = SampleHosting.CreateBuilder(options.Host, options.Port, options.Tls).Build();
        app.MapWebSocketTunnel("/{**path}", tunnel => WebSocketRelay.RunAsync(tunnel, options.Backend));
        await app.StartAsync(cancellationToken);
        return new WebSocketProxyHost(app, SampleHosting.BaseUrl(app));
    }

    /// <summary>Waits until the host is told to stop.</summary>
    public Task WaitForShutdownAsync(CancellationToken cancellationToken = default) => _app.WaitForShutdownAsync(cancellationToken);

    /// <summary>Stops the proxy.</summary>
    public async ValueTask DisposeAsync()
    {
        await _app.StopAsync();
        await _app.DisposeAsync();
    }
}
