using DotNetty.Buffers;
using DotNetty.Common.Concurrency;
using DotNetty.Common.Utilities;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.Samples.SpanNettyEchoServer;

/// <summary>
/// Copies every buffer written between two flushes into one, so the transport writes one buffer per flush. Works around
/// a SpanNetty 0.7.2012.2221 transport defect measured here: a flush of thousands of small buffers (an HTTP/2 echo of 10
/// streams: a 9-byte frame header and a small payload per DATA frame) reaches the peer with bytes lost or repeated, on
/// libuv every time, on sockets now and then (the perf tool then reports "An echo of 61 bytes came back for 64").
/// A write's promise completes when its bytes are copied, not when they reach the network.
/// </summary>
internal sealed class FlushCoalescer : ChannelHandlerAdapter
{
    private IByteBuffer? _pending;

    public override void Write(IChannelHandlerContext context, object message, IPromise promise)
    {
        if (message is not IByteBuffer buffer)
        {
            _ = context.WriteAsync(message, promise);
            return;
        }

        try
        {
            _pending ??= context.Allocator.Buffer(Math.Max(16 * 1024, buffer.ReadableBytes));
            _ = _pending.WriteBytes(buffer);
            _ = promise.TryComplete();
        }
        finally
        {
            _ = buffer.Release();
        }
    }

    public override void Flush(IChannelHandlerContext context)
    {
        IByteBuffer? pending = _pending;
        _pending = null;
        if (pending is not null)
        {
            _ = context.WriteAsync(pending, context.VoidPromise());
        }

        _ = context.Flush();
    }

    public override void HandlerRemoved(IChannelHandlerContext context)
    {
        ReferenceCountUtil.SafeRelease(_pending);
        _pending = null;
    }

    public override void Close(IChannelHandlerContext context, IPromise promise)
    {
        ReferenceCountUtil.SafeRelease(_pending);
        _pending = null;
        _ = context.CloseAsync(promise);
    }
}
