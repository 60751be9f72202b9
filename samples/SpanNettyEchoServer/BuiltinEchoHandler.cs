using DotNetty.Codecs.Http.WebSockets;
using DotNetty.Common.Utilities;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.Samples.SpanNettyEchoServer;

/// <summary>The echo on SpanNetty's own websocket codec (after its WebSocketServerProtocolHandler, which answers Pings
/// and Closes): every data frame is written back as it is; flushed once per read cycle, or per frame (the way its
/// examples do it) with <paramref name="flushPerFrame"/>.</summary>
public sealed class BuiltinEchoHandler(bool flushPerFrame) : ChannelHandlerAdapter
{
    public override void ChannelRead(IChannelHandlerContext context, object message)
    {
        if (message is BinaryWebSocketFrame or TextWebSocketFrame or ContinuationWebSocketFrame)
        {
            _ = flushPerFrame ? context.WriteAndFlushAsync(message) : context.WriteAsync(message, context.VoidPromise());
            return;
        }

        ReferenceCountUtil.Release(message);
    }

    public override void ChannelReadComplete(IChannelHandlerContext context)
    {
        if (!flushPerFrame)
        {
            context.Flush();
        }
    }

    public override void ExceptionCaught(IChannelHandlerContext context, Exception exception) => context.CloseAsync();
}
