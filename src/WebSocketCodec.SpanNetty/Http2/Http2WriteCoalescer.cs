using DotNetty.Buffers;
using DotNetty.Common.Concurrency;
using DotNetty.Common.Utilities;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty;

/// <summary>
/// Hands the transport of an HTTP/2 connection one buffer per flush and never a second one while the first is being
/// written. SpanNetty's <c>Http2FrameCodec</c> writes a 9-byte header and a payload per DATA frame, and SpanNetty
/// 0.7.2012.2221's transports mark a write done before they remove its buffers from the outbound buffer; removing them
/// completes their promises and may fire a writability change, and <c>Http2ConnectionHandler</c> (or a stream's handler)
/// flushes from there: the transport then starts a write of buffers the finished one already sent, and later removes
/// bytes it never sent. The peer reads frames twice or never (measured: with 10 streams of small frames the libuv
/// transport corrupted or stalled the connection every run with many buffers per flush, and 2-3 runs in 10 with one;
/// the socket transport now and then). Here the buffers written between two flushes are copied into one, and a flush
/// while the previous write is still on its way waits for it: the transport holds one entry at a time, so nothing it
/// runs inside a finished write can reach a buffer still to be sent. The promises of gathered writes complete, on the
/// event loop after the transport finished, when the write that carried their bytes does; so bytes held here still count
/// against each stream's writability (an HTTP/2 child channel releases a write's bytes when its promise completes), and
/// what waits here is bounded as it was in the transport's outbound buffer.
/// </summary>
/// <remarks>Put it next to the transport: in front of the <c>Http2FrameCodec</c> in cleartext, in front of the TLS
/// handler otherwise (<see cref="Http2WebSocketServer"/> and <see cref="Http2WebSocketClient"/> do). Messages other than
/// buffers pass as they are.</remarks>
public sealed class Http2WriteCoalescer : ChannelHandlerAdapter
{
    private const int InitialSize = 16 * 1024;
    private IChannelHandlerContext? _context;
    private IByteBuffer? _gathered; // written, not yet handed to the transport
    private List<IPromise>? _promises; // of the gathered writes, in order
    private int _flushedBytes; // how much of _gathered a flush asked for
    private int _flushedPromises;
    private bool _writing; // a write handed to the transport has not completed yet

    /// <inheritdoc />
    public override bool IsSharable => false;

    /// <summary>Adds one to an HTTP/2 connection's pipeline being set up, for a pipeline of your own on SpanNetty's
    /// <c>Http2FrameCodec</c>: call it before adding the codec. It goes last in cleartext (the codec follows), or in front
    /// of the <see cref="SslStreamHandler"/> with TLS.</summary>
    /// <param name="pipeline">The connection's pipeline.</param>
    public static void AddTo(IChannelPipeline pipeline)
    {
        ArgumentNullException.ThrowIfNull(pipeline);
        IChannelHandlerContext? tls = pipeline.Context<SslStreamHandler>();
        if (tls is null)
        {
            _ = pipeline.AddLast("http2-coalesce", new Http2WriteCoalescer());
        }
        else
        {
            _ = pipeline.AddBefore(tls.Name, "http2-coalesce", new Http2WriteCoalescer());
        }
    }

    /// <inheritdoc />
    public override void HandlerAdded(IChannelHandlerContext context) => _context = context;

    /// <inheritdoc />
    public override void Write(IChannelHandlerContext context, object message, IPromise promise)
    {
        if (message is not IByteBuffer buffer)
        {
            _ = context.WriteAsync(message, promise);
            return;
        }

        try
        {
            if (!buffer.IsReadable())
            {
                promise.TryComplete(); // never an empty write: SpanNetty's transports would loop on it
                return;
            }

            _gathered ??= context.Allocator.Buffer(Math.Max(InitialSize, buffer.ReadableBytes));
            _ = _gathered.WriteBytes(buffer);
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
        _flushedBytes = _gathered?.WriterIndex ?? 0;
        _flushedPromises = _promises?.Count ?? 0;
        if (!_writing)
        {
            WriteFlushed(context);
        }
    }

    /// <inheritdoc />
    public override void Close(IChannelHandlerContext context, IPromise promise)
    {
        Discard();
        _ = context.CloseAsync(promise);
    }

    /// <inheritdoc />
    public override void ChannelInactive(IChannelHandlerContext context)
    {
        Discard();
        context.FireChannelInactive();
    }

    /// <inheritdoc />
    public override void HandlerRemoved(IChannelHandlerContext context) => Discard();

    private void WriteFlushed(IChannelHandlerContext context)
    {
        if (_flushedBytes == 0)
        {
            _ = context.Flush(); // other messages may wait for it
            return;
        }

        IByteBuffer output = _gathered!;
        List<IPromise>? promises = _promises;
        if (_flushedBytes == output.WriterIndex)
        {
            _gathered = null;
            _promises = null;
        }
        else
        {
            // Written after the flush: stays for the next one.
            IByteBuffer rest = context.Allocator.Buffer(Math.Max(InitialSize, output.WriterIndex - _flushedBytes));
            _ = rest.WriteBytes(output, _flushedBytes, output.WriterIndex - _flushedBytes);
            _ = output.SetWriterIndex(_flushedBytes);
            _gathered = rest;
            _promises = promises?.Count > _flushedPromises ? promises.GetRange(_flushedPromises, promises.Count - _flushedPromises) : null;
            promises?.RemoveRange(_flushedPromises, promises.Count - _flushedPromises);
        }

        _flushedBytes = 0;
        _flushedPromises = 0;
        _writing = true;
        Task written = context.WriteAndFlushAsync(output);
        if (written.IsCompleted)
        {
            Written(written, promises); // failed at once (a closed channel): nothing is in the transport
            return;
        }

        _ = written.ContinueWith(
            static (done, state) =>
            {
                var (self, promises) = ((Http2WriteCoalescer, List<IPromise>?))state!;
                // Inside the transport's completion of the write: go on after it returned.
                self._context!.Executor.Execute(static (s, d) =>
                {
                    var (coalescer, list) = ((Http2WriteCoalescer, List<IPromise>?))s;
                    coalescer.Written((Task)d, list);
                }, (self, promises), done);
            },
            (this, promises), CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
    }

    private void Written(Task written, List<IPromise>? promises)
    {
        _writing = false;
        foreach (IPromise promise in promises ?? [])
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

        if (_flushedBytes > 0 && _context is { } context)
        {
            WriteFlushed(context);
        }
    }

    private void Discard()
    {
        ReferenceCountUtil.SafeRelease(_gathered);
        _gathered = null;
        _flushedBytes = 0;
        _flushedPromises = 0;
        List<IPromise>? promises = _promises;
        _promises = null;
        foreach (IPromise promise in promises ?? [])
        {
            _ = promise.TrySetException(new ClosedChannelException("The channel closed before the write.", null!));
        }
    }
}
