using System.Net;
using Microsoft.AspNetCore.Server.Kestrel.Core;

namespace WebSocketCodec.AspNetCore;

/// <summary>One of the two Kestrel endpoints fed from one cleartext socket: the HTTP/1.1 side or the HTTP/2 prior
/// knowledge side. Bound by the listener factory that <see cref="SharedPortExtensions.AddHttp2PriorKnowledgeDetection"/>
/// registers.</summary>
internal sealed class SharedPortEndPoint : EndPoint
{
    internal SharedPortEndPoint(SharedPortSocket socket, HttpProtocols protocol)
    {
        Socket = socket;
        Protocol = protocol;
    }

    /// <summary>The socket address both sides share (the bound port once bound).</summary>
    public IPEndPoint SocketEndPoint => Socket.BoundEndPoint ?? Socket.RequestedEndPoint;

    /// <summary><see cref="HttpProtocols.Http1"/> or <see cref="HttpProtocols.Http2"/>.</summary>
    public HttpProtocols Protocol { get; }

    internal SharedPortSocket Socket { get; }

    /// <summary>The socket address, as Kestrel shows it in its addresses.</summary>
    public override string ToString() => SocketEndPoint.ToString();
}
