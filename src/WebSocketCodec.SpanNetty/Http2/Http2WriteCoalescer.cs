using DotNetty.Buffers;
using DotNetty.Common.Concurrency;
using DotNetty.Common.Utilities;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty;

/// <summary>Hands the transport of an HTTP/2 connection one buffer per flush and never a second one while the first is
/// being written, a guard against a SpanNetty 0.7.2012.2221 transport defect: <see cref="Http2WebSocketServer"/> and
/// <see cref="Http2WebSocketClient"/> add it; add it yourself (<see cref="AddTo"/>) only to an HTTP/2 connection of
/// your own on SpanNetty's transports.</summary>
/// <remarks><para>SpanNetty's <c>Http2FrameCodec</c> writes a 9-byte header and a payload per DATA frame, and SpanNetty
/// 0.7.2012.2221's transports mark a write done before they remove its buffers from the outbound buffer; removing them
/// completes their promises and may fire a writability change, and <c>Http2ConnectionHandler</c> (or a stream's
/// handler) flushes from there: the transport then starts a write of buffers the finished one already sent, and later
/// removes bytes it never sent. The peer reads frames twice or never (measured: with 10 streams of small frames the
/// libuv transport corrupted or stalled the connection every run with many buffers per flush, and 2-3 runs in 10 with
/// one; the socket transport now and then). Here the buffers written between two flushes are copied into one, and a
/// flush while the previous write is still on its way waits for it: the transport holds one entry at a time, so nothing
/// it runs inside a finished write can reach a buffer still to be sent. The promises of gathered writes complete, on
/// the event loop after the transport finished, when the write that carried their bytes does; so bytes held here still
/// count against each stream's writability (an HTTP/2 child channel releases a write's bytes when its promise
/// completes), and what waits here is bounded as it was in the transport's outbound buffer.</para> <para>Put it next to
/// the transport: in front of the <c>Http2FrameCodec</c> in cleartext, in front of the TLS handler otherwise. Messages
/// other than buffers pass as they are.</para></remarks>
public sealed class Http2WriteCoalescer : ChannelHandlerAdapter
{
    private const int InitialSize = 16 * 1024;
    private IChannelHandlerContext? _context;
    private IByteBuffer? _gathered; // written, not yet handed to the transport
    private List<IPromise>? _promises; // of the gathered writes, in order
    private int _flushedBytes; // how much of _gathered a flush asked for
    private int _flushedPromises;
    private bool _flushWanted; // a flush came that was not passed on yet
    private bool _writing; // a write handed to the transport has not completed yet
    private List<IPromise>? _inFlight; // the promises that write carries

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
                // Never an empty write (SpanNetty's transports would loop on it), but still a barrier: it completes with
                // what was written before it (Http2ConnectionHandler closes behind one).
                if (promise.IsVoid)
                {
                }
                else if (_gathered is not null)
                {
                    (_promises ??= []).Add(promise);
                }
                else if (_writing)
                {
                    (_inFlight ??= []).Add(promise);
                }
                else
                {
                    promise.TryComplete();
                }

                return;
            }

            _gathered ??= context.Allocator.Buffer(Math.Max(InitialSize, buffer.ReadableBytes));
            _ = _gathered.WriteBytes(buffer);
            if (!promise.IsVoid)
            {
                (_promises ??= []).Add(promise);
            }
        }
        catch (Exception error)
        {
            _ = promise.TrySetException(error); // could not be gathered (no memory): this write fails, the others go on
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
        _flushWanted = true;
        if (!_writing)
        {
            Pump(context);
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

    /// <summary>Passes the flushes on, one write at a time; a loop rather than recursion when writes complete at once.
    /// Only called while no write is on its way.</summary>
    private void Pump(IChannelHandlerContext context)
    {
        while (!_writing && _flushWanted)
        {
            _flushWanted = false;
            if (_flushedBytes == 0)
            {
                _ = context.Flush(); // other messages may wait for it
                return;
            }

            IByteBuffer output = TakeFlushed(context, out List<IPromise>? promises);
            _writing = true;
            _inFlight = promises;
            Task written = context.WriteAndFlushAsync(output);
            if (!written.IsCompleted)
            {
                _ = written.ContinueWith(
                    static (done, state) => ((Http2WriteCoalescer)state!).OnWriteCompleted(done),
                    this, CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
                return;
            }

            // Done inside the call (the transport wrote at once, or failed): flushes made meanwhile were only recorded.
            CompleteInFlight(written);
        }
    }

    /// <summary>Takes what the last flush asked for out of the gathered bytes, with its promises.</summary>
    private IByteBuffer TakeFlushed(IChannelHandlerContext context, out List<IPromise>? promises)
    {
        IByteBuffer output = _gathered!;
        promises = _promises;
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
        return output;
    }

    /// <summary>The transport finished a write, inside its own completion: go on after it returned.</summary>
    private void OnWriteCompleted(Task written)
    {
        try
        {
            _context!.Executor.Execute(static (self, done) => ((Http2WriteCoalescer)self).Written((Task)done), this, written);
        }
        catch (RejectedExecutionException)
        {
            CompleteInFlight(written); // the event loop is gone, and with it any further write
            Discard();
        }
    }

    private void Written(Task written)
    {
        CompleteInFlight(written);
        if (_flushWanted && _context is { } context)
        {
            Pump(context);
        }
    }

    /// <summary>Completes the promises of the write that was on its way. Their continuations may write and flush: while
    /// this runs the write still counts as on its way, so those flushes are only recorded.</summary>
    private void CompleteInFlight(Task written)
    {
        // An empty write made by a continuation joins the write on its way, so it is settled here too.
        while (_inFlight is { } promises)
        {
            _inFlight = null;
            foreach (IPromise promise in promises)
            {
                ChannelActions.SettleLike(promise, written);
            }
        }

        _writing = false;
    }

    private void Discard()
    {
        ReferenceCountUtil.SafeRelease(_gathered);
        _gathered = null;
        _flushedBytes = 0;
        _flushedPromises = 0;
        _flushWanted = false;
        List<IPromise>? promises = _promises;
        _promises = null;
        foreach (IPromise promise in promises ?? [])
        {
            _ = promise.TrySetException(new ClosedChannelException("The channel closed before the write.", null!));
        }
    }
}
