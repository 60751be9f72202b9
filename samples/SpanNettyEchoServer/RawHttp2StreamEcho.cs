using DotNetty.Codecs.Http2;
using DotNetty.Common.Utilities;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.Samples.SpanNettyEchoServer;

/// <summary>One HTTP/2 stream of <see cref="RawHttp2Echo"/> (a child channel of SpanNetty's <c>Http2MultiplexHandler</c>):
/// its request (an extended CONNECT, or anything) is answered 200 without END_STREAM, then every DATA frame's bytes go
/// back as they came, unparsed (the same buffer, in a DATA frame of its own), flushed once per read cycle. The stream's
/// channel returns the bytes it read to the flow-control window.</summary>
public sealed class RawHttp2StreamEcho : ChannelHandlerAdapter
{
    private static readonly AsciiString Ok = new("200");

    public override void ChannelRead(IChannelHandlerContext context, object message)
    {
        switch (message)
        {
            case IHttp2HeadersFrame request:
                var headers = new DefaultHttp2Headers(validate: false) { Status = Ok };
                _ = context.WriteAsync(new DefaultHttp2HeadersFrame(headers, request.IsEndStream), context.VoidPromise());
                break;
            case IHttp2DataFrame data:
                // The DATA frame's bytes, back: the buffer's ownership passes to the frame written.
                _ = context.WriteAsync(new DefaultHttp2DataFrame(data.Content, data.IsEndStream), context.VoidPromise());
                return;
            case IHttp2ResetFrame:
                _ = context.CloseAsync();
                break;
        }

        ReferenceCountUtil.Release(message);
    }

    public override void ChannelReadComplete(IChannelHandlerContext context) => context.Flush();

    public override void ExceptionCaught(IChannelHandlerContext context, Exception exception) => context.CloseAsync();
}
