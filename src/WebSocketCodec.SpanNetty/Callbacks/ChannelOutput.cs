using DotNetty.Buffers;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty;

/// <summary>
/// The output of one websocket: frames are written into a pooled <see cref="IByteBuffer"/> (its memory reached once,
/// so each frame costs a bounds check), and a full buffer, or the buffer at the end of a read cycle, is one channel
/// write. Never writes an empty buffer (SpanNetty's libuv transport aborts the process on a write of nothing).
/// Used on the channel's event loop only.
/// </summary>
internal sealed class ChannelOutput(IChannelHandlerContext context, int chunkSize) : ChunkWriter, IDisposable
{
    private IByteBuffer? _buffer;
    private bool _pendingFlush;
    private bool _closed;

    /// <summary>Whether writes are tracked (<see cref="LastWrite"/>): on once the websocket is closing, so the channel
    /// is closed only after its last frames left (closing a channel drops what it has not sent yet).</summary>
    public bool TrackWrites { get; set; }

    /// <summary>The last tracked write: completes when it, and so everything before it, was sent.</summary>
    public Task LastWrite { get; private set; } = Task.CompletedTask;

    /// <summary>Bytes written to the channel so far (grows only): with the channel's pending bytes, the peer's progress.</summary>
    public long Written { get; private set; }

    /// <summary>Whether anything was written since the last flush.</summary>
    public bool HasPendingFlush => _pendingFlush || Pending > 0;

    /// <summary>Writes the current buffer to the channel (no flush) if it holds anything, else returns it.</summary>
    public void WriteOut()
    {
        IByteBuffer? buffer = _buffer;
        if (buffer is null)
        {
            return;
        }

        int written = Detach();
        _buffer = null;
        if (written == 0)
        {
            buffer.Release();
            return;
        }

        buffer.SetWriterIndex(buffer.WriterIndex + written);
        Write(buffer);
    }

    /// <summary>Writes a buffer of the caller's after what was written so far (ownership passes to the channel; an
    /// empty buffer is released instead).</summary>
    public void WriteOut(IByteBuffer buffer)
    {
        WriteOut();
        if (!buffer.IsReadable())
        {
            buffer.Release();
            return;
        }

        Write(buffer);
    }

    /// <summary>Writes out what was written and flushes the channel, if anything was written since the last flush.</summary>
    public void Flush()
    {
        WriteOut();
        if (_pendingFlush)
        {
            _pendingFlush = false;
            context.Flush();
        }
    }

    /// <summary>Drops what was not written out and stops taking writes (the channel is closing).</summary>
    public void Dispose()
    {
        _closed = true;
        IByteBuffer? buffer = _buffer;
        _buffer = null;
        Detach();
        buffer?.Release();
    }

    private void Write(IByteBuffer buffer)
    {
        _pendingFlush = true;
        Written += buffer.ReadableBytes;
        if (TrackWrites)
        {
            LastWrite = context.WriteAsync(buffer);
        }
        else
        {
            // No promise object per write: the void promise routes a failure to ExceptionCaught.
            _ = context.WriteAsync(buffer, context.VoidPromise());
        }
    }

    protected override Memory<byte> Refill(int sizeHint)
    {
        if (_closed)
        {
            throw new InvalidOperationException("The websocket's channel is closed.");
        }

        WriteOut();
        IByteBuffer buffer = context.Allocator.Buffer(Math.Max(sizeHint, chunkSize));
        _buffer = buffer;
        return Attach(buffer.GetMemory(buffer.WriterIndex, buffer.Capacity - buffer.WriterIndex));
    }
}
