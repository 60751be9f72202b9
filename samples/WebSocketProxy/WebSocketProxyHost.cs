using System.Net;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
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

        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.Logging.AddSimpleConsole().SetMinimumLevel(LogLevel.Warning);
        builder.Services.AddHttp2PriorKnowledgeDetection();
        builder.WebHost.ConfigureKestrel(kestrel =>
        {
            kestrel.AddServerHeader = false;
            kestrel.ConfigureHttp2ForWebSockets();
            IPAddress address = options.Host == "localhost" ? IPAddress.Loopback
                : IPAddress.TryParse(options.Host, out IPAddress? parsed) ? parsed
                : throw new ArgumentException($"--host must be an IP address or localhost, not '{options.Host}'.", nameof(options));
            if (options.Tls)
            {
                var certificate = SelfSignedCertificate.Create();
                kestrel.Listen(address, options.Port, listen =>
                {
                    listen.Protocols = HttpProtocols.Http1AndHttp2;
                    listen.UseHttps(certificate);
                });
            }
            else
            {
                kestrel.ListenHttp1AndH2c(new IPEndPoint(address, options.Port));
            }
        });
        WebApplication app = builder.Build();
        app.MapWebSocketTunnel("/{**path}", tunnel => WebSocketRelay.RunAsync(tunnel, options.Backend));
        await app.StartAsync(cancellationToken);
        string bound = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First();
        return new WebSocketProxyHost(app, new Uri(bound.EndsWith('/') ? bound : bound + "/"));
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
