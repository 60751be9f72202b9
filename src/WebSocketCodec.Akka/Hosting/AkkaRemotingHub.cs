using System.Collections.Concurrent;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.Akka;

/// <summary>
/// The transports an ASP.NET Core application serves (a singleton in its services): the endpoint that
/// <see cref="AkkaRemotingEndpointExtensions.MapAkkaRemoting"/> maps hands each websocket to the transport of the
/// actor system named in its path (<c>/akka/{system}</c>). A self-hosted transport runs one of these in its own
/// Kestrel application.
/// </summary>
internal sealed class AkkaRemotingHub(IServer server)
{
    public const string SystemRouteValue = "system";

    private readonly ConcurrentDictionary<string, WebSocketTransport> _transports = new(StringComparer.Ordinal);

    /// <summary>The path <see cref="AkkaRemotingEndpointExtensions.MapAkkaRemoting"/> mapped (null until then).</summary>
    public string? Path { get; set; }

    public void Register(string systemName, WebSocketTransport transport)
    {
        if (!_transports.TryAdd(systemName, transport))
        {
            throw new InvalidOperationException($"An actor system named '{systemName}' is served by this application already.");
        }
    }

    public void Unregister(string systemName, WebSocketTransport transport) =>
        _transports.TryRemove(new KeyValuePair<string, WebSocketTransport>(systemName, transport));

    /// <summary>Why a websocket request is refused before it is accepted, or null to accept it: 404 for an actor
    /// system this application does not serve, 403 when that system's transport requires a client certificate
    /// (tls.require-client-certificate) and the connection's TLS handshake carried none.</summary>
    public int? Refusal(HttpContext context)
    {
        if (context.Request.RouteValues[SystemRouteValue] is not string name || !_transports.TryGetValue(name, out WebSocketTransport? transport))
        {
            return StatusCodes.Status404NotFound;
        }

        return transport.RequiresClientCertificate && context.Connection.ClientCertificate is null ? StatusCodes.Status403Forbidden : null;
    }

    /// <summary>The endpoint's application: runs the websocket as an inbound association of the named system.</summary>
    public Task RunAsync(HttpContext context, WebSocketConnection websocket)
    {
        if (context.Request.RouteValues[SystemRouteValue] is string name && _transports.TryGetValue(name, out WebSocketTransport? transport))
        {
            return transport.RunInboundAsync(websocket, context.Connection.RemoteIpAddress?.ToString(), context.Connection.RemotePort);
        }

        return websocket.CloseAsync(CloseStatus.GoingAway, "no such actor system here");
    }

    /// <summary>The port the application listens on (the first of its bound addresses), once it has started.</summary>
    public int? BoundPort()
    {
        ICollection<string>? addresses = server.Features.Get<IServerAddressesFeature>()?.Addresses;
        string? first = addresses?.FirstOrDefault();
        return first is not null && Uri.TryCreate(first.Replace("*", "localhost", StringComparison.Ordinal).Replace("+", "localhost", StringComparison.Ordinal), UriKind.Absolute, out Uri? uri)
            ? uri.Port
            : null;
    }
}
