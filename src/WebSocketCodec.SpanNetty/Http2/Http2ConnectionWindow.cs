using DotNetty.Codecs.Http2;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty;

/// <summary>Opens an HTTP/2 connection's receive window from the protocol's 65,535 bytes to the size chosen (one
/// WINDOW_UPDATE on stream 0), as the server and the client connection handlers do once the connection is up.</summary>
internal static class Http2ConnectionWindow
{
    public static void Open(IChannelHandlerContext context, int connectionWindow)
    {
        int increment = connectionWindow - Http2CodecUtil.DefaultWindowSize;
        if (increment > 0)
        {
            _ = context.WriteAndFlushAsync(new DefaultHttp2WindowUpdateFrame(increment)); // no stream: the connection's
        }
    }
}
