using System.Threading.Tasks.Sources;
using DotNetty.Buffers;
using DotNetty.Common.Concurrency;
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

    private const int InitialOutputSize = 16 * 1024 + 256; // a full TLS record with its overhead

    /// <summary>What the SslStream wrote on the event loop since the last <see cref="WritePending"/>: its records are
    /// gathered into one buffer, so a flush hands the transport one buffer (SpanNetty's transports lose or repeat bytes
    /// of a flush of several, see <see cref="Http2WriteCoalescer"/>).</summary>
    private IByteBuffer? _output;
    private bool _outputDiscarded;

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

    /// <summary>Writes what the SslStream wrote since the last call, as one buffer (on the event loop). Returns the
    /// write's completion when <paramref name="track"/> is set (it completes when those bytes, and so all before them,
    /// reached the transport), <see cref="Task.CompletedTask"/> when untracked, and null when there was nothing to write.
    /// The caller flushes.</summary>
    public Task? WritePending(bool track = false)
    {
        IByteBuffer? output = _output;
        if (output is null)
        {
            return null;
        }

        _output = null;
        if (track)
        {
            return context.WriteAsync(output);
        }

        _ = context.WriteAsync(output, context.VoidPromise());
        return Task.CompletedTask;
    }

    /// <summary>Drops what was not written (the channel is closing); later writes are dropped too.</summary>
    public void DiscardPending()
    {
        if (!context.Executor.InEventLoop)
        {
            context.Executor.Execute(static state => ((ChannelStream)state).DiscardPending(), this);
            return;
        }

        _outputDiscarded = true;
        IByteBuffer? output = _output;
        _output = null;
        output?.Release();
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

        if (context.Executor.InEventLoop)
        {
            Append(buffer.Span); // the handler writes and flushes when the current step is done
            return default;
        }

        // Off the loop (the handshake may go on on a thread-pool thread): copied now, written and flushed on the loop in
        // order.
        IByteBuffer copy = ThreadSafeAllocation.For(context.Allocator).Buffer(buffer.Length);
        copy.WriteBytes(buffer.Span);
        try
        {
            context.Executor.Execute(static (self, bytes) => ((ChannelStream)self).WriteOnLoop((IByteBuffer)bytes), this, copy);
        }
        catch (RejectedExecutionException)
        {
            copy.Release(); // the event loop is gone: the SslStream's write fails
            throw;
        }

        return default;
    }

    private void Append(ReadOnlySpan<byte> bytes)
    {
        if (_outputDiscarded)
        {
            return;
        }

        _output ??= ThreadSafeAllocation.For(context.Allocator).Buffer(Math.Max(InitialOutputSize, bytes.Length));
        // Grown first: SpanNetty 0.7.2012.2221's WriteBytes(ReadOnlySpan) checks the writer index before it grows the
        // buffer, and throws when the buffer is exactly full (the connection then closed mid-stream).
        _output.EnsureWritable(bytes.Length);
        _output.WriteBytes(bytes);
    }

    private void WriteOnLoop(IByteBuffer bytes)
    {
        try
        {
            Append(bytes.UnreadSpan);
        }
        finally
        {
            bytes.Release();
        }

        if (WritePending() is not null)
        {
            context.Flush();
        }
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
