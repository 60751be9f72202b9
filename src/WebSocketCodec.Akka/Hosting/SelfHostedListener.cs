using System.Net;
using System.Security.Cryptography.X509Certificates;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using WebSocketCodec.AspNetCore;

namespace WebSocketCodec.Akka;

/// <summary>
/// The Kestrel listener of a self-hosted transport: HTTP/1.1 and HTTP/2 on one port (cleartext with prior-knowledge
/// detection, or TLS with ALPN), serving <see cref="AkkaRemotingEndpointExtensions.MapAkkaRemoting"/> at the
/// transport's path. Nothing else is served.
/// </summary>
internal sealed class SelfHostedListener : IAsyncDisposable
{
    private readonly WebApplication _app;

    private SelfHostedListener(WebApplication app, AkkaRemotingHub hub, int port)
    {
        _app = app;
        Hub = hub;
        Port = port;
    }

    public AkkaRemotingHub Hub { get; }

    /// <summary>The bound port.</summary>
    public int Port { get; }

    public static async Task<SelfHostedListener> StartAsync(WebSocketTransportSettings settings, X509Certificate2? certificate)
    {
        var endPoint = new IPEndPoint(settings.BindAddress(), settings.Port);
        WebApplicationBuilder builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        // The slim builder's console lifetime takes SIGINT/SIGTERM from the process (cancelling their default) and
        // only asks this host to stop: the process would then ignore Ctrl+C. The actor system owns this listener.
        builder.Services.AddSingleton<IHostLifetime, OwnedLifetime>();
        builder.Services.AddAkkaRemoting();
        builder.Services.AddHttp2PriorKnowledgeDetection();
        builder.WebHost.ConfigureKestrel(kestrel =>
        {
            kestrel.AddServerHeader = false;
            kestrel.ConfigureHttp2ForWebSockets();
            if (settings.RequireClientCertificate)
            {
                kestrel.ConfigureHttpsDefaults(https => MutualTls.Require(https, settings.SuppressValidation));
            }

            kestrel.ListenHttp1AndHttp2(endPoint, certificate);
        });
        WebApplication app = builder.Build();
        app.MapAkkaRemoting(settings.Path, options => options.Session = settings.SessionOptions());
        try
        {
            await app.StartAsync().ConfigureAwait(false);
        }
        catch
        {
            await app.DisposeAsync().ConfigureAwait(false);
            throw;
        }

        AkkaRemotingHub hub = app.Services.GetRequiredService<AkkaRemotingHub>();
        int port = hub.BoundPort() ?? settings.Port;
        return new SelfHostedListener(app, hub, port);
    }

    /// <summary>A lifetime that leaves the process's signals alone.</summary>
    private sealed class OwnedLifetime : IHostLifetime
    {
        public Task WaitForStartAsync(CancellationToken cancellationToken) => Task.CompletedTask;

        public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;
    }

    public async ValueTask DisposeAsync()
    {
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(5));
        try
        {
            await _app.StopAsync(timeout.Token).ConfigureAwait(false);
        }
        finally
        {
            await _app.DisposeAsync().ConfigureAwait(false);
        }
    }
}
