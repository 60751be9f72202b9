using DotNetty.Codecs.Http2;
using DotNetty.Common.Concurrency;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.Samples.SpanNettyEchoServer;

/// <summary>
/// The HTTP/2 byte echo (the perf tool's <c>spannetty-h2-raw</c>): SpanNetty's <c>Http2FrameCodec</c> and
/// <c>Http2MultiplexHandler</c> with a <see cref="RawHttp2StreamEcho"/> per stream, so every stream's DATA bytes come
/// back with no websocket framing: the ceiling for websockets over SpanNetty's HTTP/2 streams. The connection advertises
/// SETTINGS_ENABLE_CONNECT_PROTOCOL (RFC 8441, so clients send extended CONNECT), takes requests without SpanNetty's
/// header validation (which refuses <c>:protocol</c>), and sizes its windows as <c>ConfigureHttp2ForWebSockets</c> does
/// on Kestrel: 128 streams of 128 KiB, a connection window that holds them all.
/// </summary>
public static class RawHttp2Echo
{
    /// <summary>SETTINGS_ENABLE_CONNECT_PROTOCOL (RFC 8441 §3), which SpanNetty has no name for.</summary>
    public const char EnableConnectProtocol = (char)8;

    private const int MaxStreams = 128;
    private const int StreamWindow = 128 * 1024;

    /// <summary>Adds the HTTP/2 connection's handlers (after TLS, or on a cleartext connection that opens with the
    /// preface).</summary>
    public static void Configure(IChannelPipeline pipeline)
    {
        ArgumentNullException.ThrowIfNull(pipeline);
        var settings = new Http2Settings().MaxConcurrentStreams(MaxStreams).InitialWindowSize(StreamWindow);
        _ = settings.Put(EnableConnectProtocol, 1);
        var codec = new Http2FrameCodecBuilder(isServer: true) { InitialSettings = settings, IsValidateHeaders = false }.Build();
        WebSocketCodec.SpanNetty.Http2WriteCoalescer.AddTo(pipeline); // as Http2WebSocketServer: SpanNetty's transports and a flush inside a finished write
        pipeline.AddLast("h2", codec);
        pipeline.AddLast("h2-window", new ConnectionWindow((MaxStreams + 1) * StreamWindow - Http2CodecUtil.DefaultWindowSize));
        pipeline.AddLast("h2-stream1", new WebSocketCodec.SpanNetty.Http2StreamOneWindowHandler(codec));
        pipeline.AddLast("h2-streams", new Http2MultiplexHandler(new ActionChannelInitializer<IChannel>(
            stream => stream.Pipeline.AddLast("echo", new RawHttp2StreamEcho()))));
    }

    /// <summary>Grows the connection's receive window once (a WINDOW_UPDATE on stream 0), then leaves.</summary>
    private sealed class ConnectionWindow(int increment) : ChannelHandlerAdapter
    {
        public override void HandlerAdded(IChannelHandlerContext context)
        {
            if (context.Channel.IsActive)
            {
                Grow(context);
            }
        }

        public override void ChannelActive(IChannelHandlerContext context)
        {
            Grow(context);
            context.FireChannelActive();
        }

        private void Grow(IChannelHandlerContext context)
        {
            _ = context.WriteAndFlushAsync(new DefaultHttp2WindowUpdateFrame(increment));
            _ = context.Pipeline.Remove(this);
        }
    }
}
