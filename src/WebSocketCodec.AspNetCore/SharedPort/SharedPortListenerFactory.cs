using System.Net;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace WebSocketCodec.AspNetCore;

/// <summary>Binds <see cref="SharedPortEndPoint"/>s: the real socket through Kestrel's socket transport, then one
/// listener per protocol. Other endpoints are left to the other transports.</summary>
internal sealed class SharedPortListenerFactory(IOptions<SocketTransportOptions> socketOptions, ILoggerFactory loggerFactory)
    : IConnectionListenerFactory, IConnectionListenerFactorySelector
{
    private readonly SocketTransportFactory _sockets = new(socketOptions, loggerFactory);
    private readonly ILogger _logger = loggerFactory.CreateLogger("WebSocketCodec.AspNetCore.SharedPort");

    public bool CanBind(EndPoint endpoint) => endpoint is SharedPortEndPoint;

    public async ValueTask<IConnectionListener> BindAsync(EndPoint endpoint, CancellationToken cancellationToken = default)
    {
        if (endpoint is not SharedPortEndPoint shared)
        {
            throw new NotSupportedException($"{endpoint.GetType().Name} is not a {nameof(SharedPortEndPoint)}.");
        }

        return await shared.Socket.BindSideAsync(shared.Protocol, _sockets, _logger, cancellationToken).ConfigureAwait(false);
    }
}
