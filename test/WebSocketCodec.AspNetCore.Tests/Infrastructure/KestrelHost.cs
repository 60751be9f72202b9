using System.Net;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using WebSocketCodec.Samples.EchoServer;

namespace WebSocketCodec.AspNetCore.Tests.Infrastructure;

/// <summary>A Kestrel server on a free loopback port, configured by the test.</summary>
public sealed class KestrelHost : IAsyncDisposable
{
    private KestrelHost(WebApplication app, Uri baseUrl)
    {
        App = app;
        BaseUrl = baseUrl;
    }

    public WebApplication App { get; }

    public Uri BaseUrl { get; }

    public IPEndPoint EndPoint => new(IPAddress.Loopback, BaseUrl.Port);

    public Uri WebSocketUrl(string path) => new($"{(BaseUrl.Scheme == "https" ? "wss" : "ws")}://{BaseUrl.Authority}{path}");

    /// <summary>Starts Kestrel on a free port (or <paramref name="port"/>): HTTP/1.1 only unless <paramref name="listen"/> says otherwise, or
    /// HTTP/1.1 and h2c on one port with <paramref name="sharedPort"/>.</summary>
    public static async Task<KestrelHost> StartAsync(
        Action<WebApplication>? map = null, Action<ListenOptions>? listen = null, bool tls = false, Action<IServiceCollection>? services = null,
        bool sharedPort = false, Action<KestrelServerOptions>? kestrelOptions = null, TimeSpan? detectionTimeout = null,
        int port = 0)
    {
        var builder = WebApplication.CreateSlimBuilder();
        services?.Invoke(builder.Services);
        builder.Services.AddHttp2PriorKnowledgeDetection();
        builder.Logging.ClearProviders();
        builder.WebHost.ConfigureKestrel(kestrel =>
        {
            kestrelOptions?.Invoke(kestrel);
            if (sharedPort)
            {
                kestrel.ListenHttp1AndH2c(new IPEndPoint(IPAddress.Loopback, port), listen, detectionTimeout);
                return;
            }

            kestrel.Listen(IPAddress.Loopback, port, options =>
            {
                options.Protocols = HttpProtocols.Http1;
                if (tls)
                {
                    options.UseHttps(SelfSignedCertificate.Create());
                }

                listen?.Invoke(options);
            });
        });
        WebApplication app = builder.Build();
        map?.Invoke(app);
        await app.StartAsync();
        string address = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First();
        return new KestrelHost(app, new Uri(address));
    }

    public async ValueTask DisposeAsync()
    {
        await App.StopAsync();
        await App.DisposeAsync();
    }
}
