using System.Net;
using System.Reflection;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.Extensions.Hosting;

namespace WebSocketCodec.Samples.EchoServer;

/// <summary>The echo server on Kestrel: <c>/echo</c> echoes every websocket message, <c>/</c> serves a page that talks
/// to it. One port serves HTTP/1.1 upgrades and HTTP/2 extended CONNECT: with TLS through ALPN (h2, http/1.1), in
/// cleartext through HTTP/2 prior knowledge told apart from HTTP/1.1 by the first bytes.</summary>
public sealed class EchoServerHost : IAsyncDisposable
{
    /// <summary>Where the echo is served.</summary>
    public const string EchoPath = "/echo";

    private readonly WebApplication _app;

    private EchoServerHost(WebApplication app, Uri baseUrl, EchoStatistics statistics)
    {
        _app = app;
        BaseUrl = baseUrl;
        Statistics = statistics;
    }

    /// <summary>Which protocols carried the websocket requests to <c>/echo</c>.</summary>
    public EchoStatistics Statistics { get; }

    /// <summary>The server's base URL, e.g. <c>http://127.0.0.1:8080/</c>.</summary>
    public Uri BaseUrl { get; }

    /// <summary>The bound endpoint (useful with port 0).</summary>
    public IPEndPoint EndPoint => new(BaseUrl.IsLoopback && !IPAddress.TryParse(BaseUrl.Host, out _) ? IPAddress.Loopback : IPAddress.Parse(BaseUrl.Host), BaseUrl.Port);

    /// <summary>The websocket URL of the echo, e.g. <c>ws://127.0.0.1:8080/echo</c>.</summary>
    public Uri Url => SampleHosting.WebSocketUrl(BaseUrl, EchoPath);

    /// <summary>Builds and starts the server.</summary>
    public static async Task<EchoServerHost> StartAsync(EchoServerOptions options, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(options);
        if (options.Codec is not ("ours" or "builtin"))
        {
            throw new ArgumentException($"Unknown codec '{options.Codec}': use ours or builtin.", nameof(options));
        }

        WebApplication app = SampleHosting.CreateBuilder(options.Host, options.Port, options.Tls).Build();
        var stats = new EchoStatistics();
        app.Use((context, next) =>
        {
            if (SampleHosting.IsClassicConnect(context))
            {
                // A classic CONNECT asks for a tunnel: this server is not a proxy.
                context.Response.StatusCode = StatusCodes.Status501NotImplemented;
                return Task.CompletedTask;
            }

            if (context.Request.Path == EchoPath)
            {
                stats.Record(context);
            }

            return next(context);
        });
        app.MapGet("/", ServeIndex);
        if (options.Codec == "builtin")
        {
            BuiltinEcho.Map(app, EchoPath, options.KeepAlive ?? WebSocketSessionOptions.Default.KeepAliveInterval, options.Deflate);
        }
        else
        {
            OurEcho.Map(app, EchoPath, options.ConfigureAccept);
        }

        await app.StartAsync(cancellationToken);
        return new EchoServerHost(app, SampleHosting.BaseUrl(app), stats);
    }

    /// <summary>Waits until the host is told to stop (Ctrl+C, SIGTERM, or <paramref name="cancellationToken"/>).</summary>
    public Task WaitForShutdownAsync(CancellationToken cancellationToken = default) => _app.WaitForShutdownAsync(cancellationToken);

    /// <summary>Stops gracefully: open websockets get Close 1001 first.</summary>
    public async ValueTask DisposeAsync()
    {
        await _app.StopAsync();
        await _app.DisposeAsync();
    }

    private static async Task ServeIndex(HttpContext context)
    {
        await using Stream page = Assembly.GetExecutingAssembly().GetManifestResourceStream("index.html")!;
        context.Response.ContentType = "text/html; charset=utf-8";
        await page.CopyToAsync(context.Response.Body, context.RequestAborted);
    }
}
