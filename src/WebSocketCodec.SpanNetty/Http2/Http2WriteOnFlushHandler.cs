using DotNetty.Common.Concurrency;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty;

/// <summary>
/// Between a TLS handler and SpanNetty's <c>Http2FrameCodec</c>: completes each write when a flush sent it on, as a
/// socket does, rather than when it was accepted. SpanNetty's HTTP/2 child channel only remembers that it has a write
/// to flush when the connection's write is still pending, so a write that completes at once (an
/// <see cref="SslStreamHandler"/> completes it once encrypted) makes the stream's next flush a no-op: its HEADERS or
/// END_STREAM then wait for some other flush of the connection.
/// </summary>
internal sealed class Http2WriteOnFlushHandler : ChannelHandlerAdapter
{
    private readonly Queue<(Task Written, IPromise Promise)> _pending = new();

    public override void Write(IChannelHandlerContext context, object message, IPromise promise)
    {
        if (promise.IsVoid)
        {
            _ = context.WriteAsync(message, promise);
            return;
        }

        _pending.Enqueue((context.WriteAsync(message), promise));
    }

    public override void Flush(IChannelHandlerContext context)
    {
        context.Flush();
        Release();
    }

    public override void Close(IChannelHandlerContext context, IPromise promise)
    {
        Release();
        _ = context.CloseAsync(promise);
    }

    public override void ChannelInactive(IChannelHandlerContext context)
    {
        Release();
        context.FireChannelInactive();
    }

    public override void HandlerRemoved(IChannelHandlerContext context) => Release();

    private void Release()
    {
        while (_pending.TryDequeue(out var pending))
        {
            Link(pending.Written, pending.Promise);
        }
    }

    private static void Link(Task written, IPromise promise)
    {
        if (written.IsCompletedSuccessfully)
        {
            promise.TryComplete();
            return;
        }

        _ = written.ContinueWith(
            static (done, state) => ChannelActions.SettleLike((IPromise)state!, done),
            promise, CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
    }
}
