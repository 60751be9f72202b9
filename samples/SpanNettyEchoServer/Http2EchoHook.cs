using DotNetty.Transport.Channels;
using WebSocketCodec.SpanNetty;

namespace WebSocketCodec.Samples.SpanNettyEchoServer;

/// <summary>
/// Where our websocket server over SpanNetty's HTTP/2 streams (<see cref="Http2WebSocketServer"/>, RFC 8441) joins the
/// echo server: the one-port pipelines (<see cref="SpanNettyEchoHost.Configure"/>: <see cref="Http2PriorKnowledgeDetector"/>
/// in cleartext, <see cref="AlpnProtocolSelector"/> with TLS) send every HTTP/2 connection here.
/// </summary>
public static class Http2EchoHook
{
    /// <summary>Adds the HTTP/2 connection's handlers that serve websockets (extended CONNECT, RFC 8441) at
    /// <paramref name="path"/> with <paramref name="listenerFactory"/> and <paramref name="accept"/>, the same as the
    /// HTTP/1.1 upgrade handler gets.</summary>
    public static void Configure(
        IChannelPipeline pipeline, string path, Func<ChannelFrameSender, IWebSocketFrameListener> listenerFactory, WebSocketAcceptOptions accept)
    {
        ArgumentNullException.ThrowIfNull(pipeline);
        ArgumentNullException.ThrowIfNull(path);
        ArgumentNullException.ThrowIfNull(listenerFactory);
        ArgumentNullException.ThrowIfNull(accept);
        Http2WebSocketServer.Configure(pipeline, path, listenerFactory, accept);
    }
}
