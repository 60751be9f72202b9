using DotNetty.Transport.Channels;
using WebSocketCodec.SpanNetty;

namespace WebSocketCodec.Samples.SpanNettyEchoServer;

/// <summary>
/// HOOK (issue 27): where our websocket server over SpanNetty's HTTP/2 streams joins the echo server. The one-port
/// pipelines (<see cref="SpanNettyEchoHost.Configure"/>: <see cref="Http2PriorKnowledgeDetector"/> in cleartext,
/// <see cref="AlpnProtocolSelector"/> with TLS) already send every HTTP/2 connection here. Until the server is wired
/// in, <see cref="IsBuilt"/> is false: HTTP/2 connections are closed, TLS offers only http/1.1, and the codec
/// <c>ours-h2</c> (the perf tool's <c>spannetty-h2</c>) refuses to start with "not built yet".
/// </summary>
public static class Http2EchoHook
{
    /// <summary>Whether websockets over HTTP/2 are served. Set to true when <see cref="Configure"/> is filled in.</summary>
    public static bool IsBuilt => false;

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

        // HOOK: pipeline.AddLast(<the HTTP/2 websocket server's handlers>(path, listenerFactory, accept)); and make
        // IsBuilt true. Until then the connection is closed (the preface's bytes go to the pipeline's tail, released).
        _ = pipeline.Channel.CloseAsync();
    }
}
