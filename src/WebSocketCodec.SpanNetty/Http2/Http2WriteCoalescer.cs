using DotNetty.Buffers;
using DotNetty.Common.Concurrency;
using DotNetty.Common.Utilities;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty;

/// <summary>
/// Copies the buffers an HTTP/2 connection writes between two flushes into one, so the transport writes one buffer per
/// flush. SpanNetty's <c>Http2FrameCodec</c> writes a 9-byte header and a payload per DATA frame, so a flush of many
/// websockets' frames is many buffers, and SpanNetty 0.7.2012.2221's transports lose, repeat or stall bytes of a flush of
/// several buffers (measured with 10 streams of 64-byte frames: the libuv transport every time, even when the buffers
/// were gathered into a few of 64 KiB; the socket transport now and then; the peer then reads garbage or waits
/// forever), while one buffer per flush never showed it. The promises of gathered writes complete when the write that
/// carries their bytes does.
/// </summary>
/// <remarks>Put it between the transport (or TLS) and the <c>Http2FrameCodec</c>; <see cref="Http2WebSocketServer"/>
/// does.</remarks>
public sealed class Http2WriteCoalescer : ChannelHandlerAdapter
{
    private const int InitialSize = 16 * 1024;
    private IByteBuffer? _pending;
    private List<IPromise>? _promises;

    /// <inheritdoc />
    public override bool IsSharable => false;

    /// <inheritdoc />
    public override void Write(IChannelHandlerContext context, object message, IPromise promise)
    {
        if (message is not IByteBuffer buffer)
        {
            WritePending(context);
            _ = context.WriteAsync(message, promise);
            return;
        }

        try
        {
            _pending ??= context.Allocator.Buffer(Math.Max(InitialSize, buffer.ReadableBytes));
            _ = _pending.WriteBytes(buffer);
            if (!promise.IsVoid)
            {
                (_promises ??= []).Add(promise);
            }
        }
        finally
        {
            _ = buffer.Release();
        }
    }

    /// <inheritdoc />
    public override void Flush(IChannelHandlerContext context)
    {
        WritePending(context);
        _ = context.Flush();
    }

    /// <inheritdoc />
    public override void Close(IChannelHandlerContext context, IPromise promise)
    {
        Discard();
        _ = context.CloseAsync(promise);
    }

    /// <inheritdoc />
    public override void HandlerRemoved(IChannelHandlerContext context) => Discard();

    private void WritePending(IChannelHandlerContext context)
    {
        IByteBuffer? pending = _pending;
        if (pending is null)
        {
            return;
        }

        _pending = null;
        List<IPromise>? promises = _promises;
        if (promises is null)
        {
            _ = context.WriteAsync(pending, context.VoidPromise());
            return;
        }

        _promises = null;
        Task written = context.WriteAsync(pending);
        if (written.IsCompleted)
        {
            Complete(written, promises);
            return;
        }

        _ = written.ContinueWith(
            static (done, state) => Complete(done, (List<IPromise>)state!), promises,
            CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
    }

    private static void Complete(Task written, List<IPromise> promises)
    {
        foreach (IPromise promise in promises)
        {
            if (written.IsCompletedSuccessfully)
            {
                _ = promise.TryComplete();
            }
            else
            {
                _ = promise.TrySetException(written.Exception?.InnerException ?? new ClosedChannelException("The write was cancelled.", null!));
            }
        }
    }

    private void Discard()
    {
        ReferenceCountUtil.SafeRelease(_pending);
        _pending = null;
        List<IPromise>? promises = _promises;
        _promises = null;
        foreach (IPromise promise in promises ?? [])
        {
            _ = promise.TrySetException(new ClosedChannelException("The channel closed before the write.", null!));
        }
    }
}
