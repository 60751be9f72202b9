using System.Net;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using WebSocketCodec.AspNetCore;

namespace WebSocketCodec.Samples.EchoServer;

/// <summary>What the samples' servers share: a Kestrel that serves HTTP/1.1 and HTTP/2 websockets on one port (TLS with
/// a self-signed certificate, or cleartext with prior knowledge), with flow control sized for websockets and its socket
/// transport tuned for them (64 KiB pinned blocks: <see cref="KestrelTuningExtensions.AddKestrelWebSocketTuning"/>).</summary>
public static class SampleHosting
{
    /// <summary>A builder listening on <paramref name="host"/> (an IP address or <c>localhost</c>) and
    /// <paramref name="port"/>.</summary>
    public static WebApplicationBuilder CreateBuilder(string host, int port, bool tls)
    {
        IPAddress address = ParseAddress(host);
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.Logging.AddSimpleConsole().SetMinimumLevel(LogLevel.Warning);
        builder.Services.AddHttp2PriorKnowledgeDetection();
        builder.Services.AddKestrelWebSocketTuning();
        builder.WebHost.ConfigureKestrel(kestrel =>
        {
            kestrel.AddServerHeader = false;
            kestrel.ConfigureHttp2ForWebSockets();
            kestrel.ListenHttp1AndHttp2(new IPEndPoint(address, port), tls ? SelfSignedCertificate.Create() : null);
        });
        return builder;
    }

    /// <summary>The address of <c>--host</c>: an IP address or <c>localhost</c>.</summary>
    /// <exception cref="ArgumentException">Neither.</exception>
    public static IPAddress ParseAddress(string host) =>
        host == "localhost" ? IPAddress.Loopback
            : IPAddress.TryParse(host, out IPAddress? parsed) ? parsed
            : throw new ArgumentException($"--host must be an IP address or localhost, not '{host}'.", nameof(host));

    /// <summary>Whether the request is a classic CONNECT (a tunnel asked of a proxy, not an extended CONNECT): the
    /// samples answer it 501.</summary>
    public static bool IsClassicConnect(HttpContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        return HttpMethods.IsConnect(context.Request.Method)
            && context.Features.Get<IHttpExtendedConnectFeature>() is not { IsExtendedConnect: true };
    }

    /// <summary>The websocket URL of <paramref name="path"/> on a server at <paramref name="baseUrl"/> (ws, or wss
    /// with TLS).</summary>
    public static Uri WebSocketUrl(Uri baseUrl, string path)
    {
        ArgumentNullException.ThrowIfNull(baseUrl);
        return new($"{(baseUrl.Scheme == "https" ? "wss" : "ws")}://{baseUrl.Authority}{path}");
    }

    /// <summary>The started server's base URL, e.g. <c>http://127.0.0.1:8080/</c>.</summary>
    public static Uri BaseUrl(WebApplication app)
    {
        ArgumentNullException.ThrowIfNull(app);
        string address = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First();
        return new Uri(address.EndsWith('/') ? address : address + "/");
    }

    /// <summary>What a sample's command does once its options are read: starts the server, prints one line
    /// <c>listening on URL</c>, serves until Ctrl+C or SIGTERM, then prints <c>stopped</c>.</summary>
    /// <returns>The exit code: 0, or 1 (with the reason on stderr) when the server cannot start (a bad address, the port
    /// taken).</returns>
    public static async Task<int> RunAsync<THost>(
        Func<CancellationToken, Task<THost>> start, Func<THost, Uri> url, Func<THost, CancellationToken, Task> waitForShutdown, CancellationToken cancellation)
        where THost : IAsyncDisposable
    {
        ArgumentNullException.ThrowIfNull(start);
        ArgumentNullException.ThrowIfNull(url);
        ArgumentNullException.ThrowIfNull(waitForShutdown);
        THost server;
        try
        {
            server = await start(cancellation).ConfigureAwait(false);
        }
        catch (Exception error) when (error is ArgumentException or IOException)
        {
            await Console.Error.WriteLineAsync($"cannot start: {error.Message}").ConfigureAwait(false);
            return 1;
        }

        await using (server.ConfigureAwait(false))
        {
            Console.WriteLine($"listening on {url(server)}");
            await waitForShutdown(server, cancellation).ConfigureAwait(false); // Ctrl+C and SIGTERM stop the host
            Console.WriteLine("stopped");
        }

        return 0;
    }
}
