using System.Collections.Concurrent;
using System.Net;
using System.Security.Cryptography.X509Certificates;
using Akka.Actor;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.AspNetCore.Server.Kestrel.Https;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using WebSocketCodec.AspNetCore;

namespace WebSocketCodec.Akka.Tests.Infrastructure;

/// <summary>
/// Endpoint mode under test: an ASP.NET Core application on 127.0.0.1 and a free port (HTTP/1.1 and h2c prior knowledge
/// on one cleartext port, or HTTP/1.1 and HTTP/2 over TLS with ALPN) that maps Akka remoting at <c>/akka</c>, and the actor systems it serves. It counts the TCP
/// connections Kestrel accepts and records every request that reaches the application (its connection and protocol).
/// </summary>
public sealed class RemotingApp : IAsyncDisposable
{
    private readonly WebApplication _app;
    private readonly List<ActorSystem> _systems = [];
    private readonly ConcurrentQueue<SeenRequest> _requests;
    private readonly Func<int> _accepted;

    private RemotingApp(WebApplication app, int port, ConcurrentQueue<SeenRequest> requests, Func<int> accepted)
    {
        _app = app;
        Port = port;
        _requests = requests;
        _accepted = accepted;
    }

    /// <summary>The port the application listens on.</summary>
    public int Port { get; }

    /// <summary>The application's services (what a <see cref="WebSocketRemotingSetup"/> carries).</summary>
    public IServiceProvider Services => _app.Services;

    /// <summary>The TCP connections Kestrel has accepted so far.</summary>
    public int AcceptedConnections => _accepted();

    /// <summary>Every request that reached the application, in arrival order.</summary>
    public IReadOnlyCollection<SeenRequest> Requests => _requests;

    /// <summary>Starts the application; <paramref name="map"/> adds endpoints of its own beside <c>/akka</c>; with
    /// <paramref name="certificate"/> it serves TLS only, its HTTPS options adjusted by <paramref name="https"/> (client
    /// certificates, say).</summary>
    public static async Task<RemotingApp> StartAsync(
        Action<IEndpointRouteBuilder>? map = null, X509Certificate2? certificate = null, Action<HttpsConnectionAdapterOptions>? https = null)
    {
        int accepted = 0;
        var requests = new ConcurrentQueue<SeenRequest>();
        WebApplicationBuilder builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.Services.AddAkkaRemoting();
        builder.Services.AddHttp2PriorKnowledgeDetection();
        builder.WebHost.ConfigureKestrel(kestrel =>
        {
            kestrel.ConfigureHttp2ForWebSockets();
            var endPoint = new IPEndPoint(IPAddress.Loopback, 0);
            if (certificate is null)
            {
                kestrel.ListenHttp1AndH2c(endPoint, CountConnections);
            }
            else
            {
                kestrel.Listen(endPoint, listen =>
                {
                    listen.Protocols = HttpProtocols.Http1AndHttp2;
                    CountConnections(listen); // before TLS: every accepted TCP connection
                    listen.UseHttps(options =>
                    {
                        options.ServerCertificate = certificate;
                        https?.Invoke(options);
                    });
                });
            }
        });
        WebApplication app = builder.Build();

        app.Use((context, next) =>
        {
            requests.Enqueue(new SeenRequest(context.Connection.Id, context.Request.Protocol, context.Request.Path));
            return next(context);
        });
        app.MapAkkaRemoting("/akka");
        map?.Invoke(app);
        await app.StartAsync();
        int port = new Uri(app.Urls.First()).Port;
        return new RemotingApp(app, port, requests, () => Volatile.Read(ref accepted));

        void CountConnections(ListenOptions listen) => listen.Use(next => connection =>
        {
            Interlocked.Increment(ref accepted);
            return next(connection);
        });
    }

    /// <summary>Starts an actor system served by this application (port 0: it takes the application's port).</summary>
    public ActorSystem StartSystem(string name, string websocket = "", string extra = "")
    {
        ActorSystem system = Nodes.Start(name, websocket, extra, new WebSocketRemotingSetup { Services = Services });
        lock (_systems)
        {
            _systems.Add(system);
        }

        return system;
    }

    /// <summary>Terminates the actor systems, then stops the application.</summary>
    public async ValueTask DisposeAsync()
    {
        ActorSystem[] systems;
        lock (_systems)
        {
            systems = [.. _systems];
        }

        await Task.WhenAll(systems.Select(system => system.Terminate()));
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(10));
        await _app.StopAsync(timeout.Token);
        await _app.DisposeAsync();
    }
}

/// <summary>A request the application saw: its connection's id, its protocol (HTTP/1.1, HTTP/2) and path.</summary>
public sealed record SeenRequest(string ConnectionId, string Protocol, PathString Path);
