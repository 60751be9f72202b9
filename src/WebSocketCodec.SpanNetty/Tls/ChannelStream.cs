using System.Threading.Tasks.Sources;
using DotNetty.Buffers;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty;

/// <summary>
/// The network side of an <see cref="System.Net.Security.SslStream"/> inside a SpanNetty pipeline: reads take the
/// channel's inbound buffers (a pending read completes inline when the event loop feeds one), writes become channel
/// writes of pooled buffers. The SslStream may go on from a thread-pool thread (its handshake does), so the inbound
/// queue is locked and a write made off the event loop is written and flushed on it, in order.
/// </summary>
internal sealed class ChannelStream(IChannelHandlerContext context) : Stream, IValueTaskSource<int>
{
    private readonly Lock _lock = new();
    private readonly Queue<IByteBuffer> _inbound = new();
    private ManualResetValueTaskSourceCore<int> _pending = new() { RunContinuationsAsynchronously = false };
    private Memory<byte> _pendingBuffer;
    private bool _readPending;
    private bool _ended;

    /// <summary>Whether a write was made since the last <see cref="TakeFlush"/>.</summary>
    private bool _needsFlush;

    /// <summary>Whether writes on the event loop are tracked (<see cref="LastWrite"/>); off, they take no promise.</summary>
    public bool TrackWrites { get; set; }

    /// <summary>The last tracked write: completes when its bytes, and so all before them, reached the transport.</summary>
    public Task LastWrite { get; private set; } = Task.CompletedTask;

    public override bool CanRead => true;

    public override bool CanWrite => true;

    public override bool CanSeek => false;

    public override long Length => throw new NotSupportedException();

    public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }

    /// <summary>Hands inbound bytes to the reader (ownership passes here).</summary>
    public void Feed(IByteBuffer buffer)
    {
        int read;
        lock (_lock)
        {
            if (_ended || !buffer.IsReadable())
            {
                buffer.Release();
                return;
            }

            _inbound.Enqueue(buffer);
            if (!_readPending)
            {
                return;
            }

            _readPending = false;
            read = Take(_pendingBuffer.Span);
            _pendingBuffer = default;
        }

        _pending.SetResult(read); // the SslStream goes on inline
    }

    /// <summary>The channel's input ended: a pending read completes with 0, and so does every read after.</summary>
    public void End()
    {
        lock (_lock)
        {
            _ended = true;
            while (_inbound.TryDequeue(out IByteBuffer? buffer))
            {
                buffer.Release();
            }

            if (!_readPending)
            {
                return;
            }

            _readPending = false;
            _pendingBuffer = default;
        }

        _pending.SetResult(0);
    }

    /// <summary>Whether the SslStream wrote since the last call (then the channel needs a flush).</summary>
    public bool TakeFlush()
    {
        bool needs = _needsFlush;
        _needsFlush = false;
        return needs;
    }

    public override ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
    {
        lock (_lock)
        {
            if (_inbound.Count > 0)
            {
                // A zero-byte read (the SslStream waiting for data) completes when data is there, with 0.
                return new ValueTask<int>(Take(buffer.Span));
            }

            if (_ended)
            {
                return new ValueTask<int>(0);
            }

            if (_readPending)
            {
                throw new InvalidOperationException("A read is already pending.");
            }

            _pending.Reset();
            _pendingBuffer = buffer;
            _readPending = true;
            return new ValueTask<int>(this, _pending.Version);
        }
    }

    public override ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default)
    {
        if (buffer.IsEmpty)
        {
            return default; // never a write of nothing
        }

        IByteBuffer output = context.Allocator.Buffer(buffer.Length);
        output.WriteBytes(buffer.Span);
        if (context.Executor.InEventLoop)
        {
            _needsFlush = true; // the handler flushes when the current step is done
            if (TrackWrites)
            {
                LastWrite = context.WriteAsync(output);
            }
            else
            {
                _ = context.WriteAsync(output, context.VoidPromise());
            }
        }
        else
        {
            context.Executor.Execute(static (ctx, buffer) =>
            {
                var c = (IChannelHandlerContext)ctx;
                _ = c.WriteAndFlushAsync(buffer, c.VoidPromise());
            }, context, output);
        }

        return default;
    }

    public override Task WriteAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
        WriteAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();

    public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
        ReadAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();

    public override Task FlushAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public override void Flush()
    {
    }

    public override int Read(byte[] buffer, int offset, int count) =>
        throw new NotSupportedException("The channel's stream is asynchronous.");

    public override void Write(byte[] buffer, int offset, int count) => WriteAsync(buffer.AsMemory(offset, count)).AsTask().GetAwaiter().GetResult();

    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();

    int IValueTaskSource<int>.GetResult(short token) => _pending.GetResult(token);

    ValueTaskSourceStatus IValueTaskSource<int>.GetStatus(short token) => _pending.GetStatus(token);

    void IValueTaskSource<int>.OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _pending.OnCompleted(continuation, state, token, flags);

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            End();
        }

        base.Dispose(disposing);
    }

    private int Take(Span<byte> destination)
    {
        int total = 0;
        while (total < destination.Length && _inbound.TryPeek(out IByteBuffer? buffer))
        {
            int count = Math.Min(buffer.ReadableBytes, destination.Length - total);
            buffer.ReadBytes(destination.Slice(total, count));
            total += count;
            if (!buffer.IsReadable())
            {
                _inbound.Dequeue().Release();
            }
        }

        return total;
    }
}
