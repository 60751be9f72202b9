using System.Net;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using WebSocketCodec.Samples.EchoServer;
using Yarp.ReverseProxy.Configuration;
using Yarp.ReverseProxy.Forwarder;
using Yarp.ReverseProxy.Health;

namespace WebSocketCodec.Samples.ChatGateway;

/// <summary>
/// One address for a chat cluster: a reverse proxy (YARP) that takes every request and websocket (HTTP/1.1 upgrades and
/// HTTP/2 extended CONNECT alike) to one of the chat nodes, spread by load (power of two choices), with no sticky
/// sessions: a room's members may be on any node, the cluster groups join them up. Each node's <c>/health</c> is asked
/// every second (active health checks); a node that fails twice, or whose forwarding fails (passive checks), gets no
/// new websockets until it answers again, so the pages of a node that died reconnect to the others.
/// </summary>
public sealed class GatewayHost : IAsyncDisposable
{
    private readonly WebApplication _app;

    private GatewayHost(WebApplication app) => _app = app;

    /// <summary>The gateway's base URL, e.g. <c>http://127.0.0.1:8080/</c>.</summary>
    public Uri BaseUrl => SampleHosting.BaseUrl(_app);

    /// <summary>Builds and starts the gateway.</summary>
    /// <exception cref="ArgumentException">No node, or a node URL that is not http(s).</exception>
    public static async Task<GatewayHost> StartAsync(GatewayOptions options, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(options);
        if (options.Nodes.Count == 0)
        {
            throw new ArgumentException("--nodes names no chat node.");
        }

        foreach (Uri node in options.Nodes)
        {
            if (node.Scheme is not ("http" or "https"))
            {
                throw new ArgumentException($"--nodes takes http(s)://host:port URLs, not '{node}'.");
            }
        }

        WebApplicationBuilder builder = SampleHosting.CreateBuilder(options.Host, options.Port, options.Tls);
        // A node that does not answer its health check is routine here (one starting, one killed): no stack traces.
        builder.Logging.AddFilter("Yarp.ReverseProxy.Health", LogLevel.Error);
        builder.Services.AddReverseProxy().LoadFromMemory([Route()], [Cluster(options)]);
        WebApplication app = builder.Build();
        app.MapReverseProxy();
        await app.StartAsync(cancellationToken);
        return new GatewayHost(app);
    }

    private static RouteConfig Route() => new()
    {
        RouteId = "chat",
        ClusterId = "nodes",
        Match = new RouteMatch { Path = "{**path}" },
    };

    private static ClusterConfig Cluster(GatewayOptions options) => new()
    {
        ClusterId = "nodes",
        LoadBalancingPolicy = "PowerOfTwoChoices",
        Destinations = options.Nodes
            .Select((node, i) => (Id: $"node{i}", Config: new DestinationConfig { Address = node.ToString(), Health = new Uri(node, "/health").ToString() }))
            .ToDictionary(d => d.Id, d => d.Config),
        HealthCheck = new HealthCheckConfig
        {
            Active = new ActiveHealthCheckConfig
            {
                Enabled = true,
                Interval = options.HealthInterval,
                Timeout = options.HealthInterval,
                Policy = HealthCheckConstants.ActivePolicy.ConsecutiveFailures,
            },
            Passive = new PassiveHealthCheckConfig
            {
                Enabled = true,
                Policy = HealthCheckConstants.PassivePolicy.TransportFailureRate,
                ReactivationPeriod = options.HealthInterval * 2,
            },
        },
        HttpRequest = options.Http2ToNodes
            ? new ForwarderRequestConfig { Version = HttpVersion.Version20, VersionPolicy = HttpVersionPolicy.RequestVersionExact }
            : new ForwarderRequestConfig { Version = HttpVersion.Version11, VersionPolicy = HttpVersionPolicy.RequestVersionExact },
        // The samples' certificates are self-signed (made at start): a real gateway trusts its nodes' issuer instead.
        HttpClient = new HttpClientConfig { DangerousAcceptAnyServerCertificate = options.Nodes.Any(node => node.Scheme == "https") },
    };

    /// <summary>Waits until the host is told to stop (Ctrl+C, SIGTERM, or <paramref name="cancellationToken"/>).</summary>
    public Task WaitForShutdownAsync(CancellationToken cancellationToken = default) => _app.WaitForShutdownAsync(cancellationToken);

    /// <summary>Stops the gateway.</summary>
    public async ValueTask DisposeAsync()
    {
        await _app.StopAsync();
        await _app.DisposeAsync();
    }
}
