using DotNetty.Codecs.Http2;
using DotNetty.Common.Utilities;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty.Tests.Http2;

/// <summary>A minimal HTTP/2 server for the one-port tests, after SpanNetty's <c>Http2FrameCodec</c>: every request's
/// HEADERS with END_STREAM (a plain GET) is answered 200 with END_STREAM and no body; every other frame is dropped.</summary>
internal sealed class OnePortGetResponder : ChannelHandlerAdapter
{
    private static readonly AsciiString Ok = new("200");

    /// <summary>Adds the frame codec (server side) and the responder.</summary>
    public static void Configure(IChannelPipeline pipeline)
    {
        pipeline.AddLast("h2", Http2FrameCodecBuilder.ForServer().Build());
        pipeline.AddLast("get", new OnePortGetResponder());
    }

    public override void ChannelRead(IChannelHandlerContext context, object message)
    {
        if (message is IHttp2HeadersFrame { IsEndStream: true } request)
        {
            var headers = new DefaultHttp2Headers { Status = Ok };
            _ = context.WriteAndFlushAsync(new DefaultHttp2HeadersFrame(headers, endStream: true) { Stream = request.Stream });
        }

        ReferenceCountUtil.Release(message);
    }
}
