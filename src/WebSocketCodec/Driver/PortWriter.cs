namespace WebSocketCodec;

/// <summary>
/// Gathers many small writes into the chunk of the transport's output memory it holds, and commits them with one
/// <see cref="IWebSocketTransport.AdvanceOutput"/> per chunk: a pipe's <c>Advance</c> takes a lock, so frames cost a
/// bounds check each and the transport is called once per chunk. Used under the driver's output lock only;
/// <see cref="Commit"/> runs before every flush and before the output ends.
/// </summary>
internal sealed class PortWriter(IWebSocketTransport transport) : ChunkWriter
{
    private long _committed;

    /// <summary>Bytes committed to the transport so far, in all.</summary>
    public long Committed => _committed;

    /// <summary>Commits what was written to the transport (before a flush, and before the output ends).</summary>
    public void Commit()
    {
        int written = Detach();
        if (written > 0)
        {
            transport.AdvanceOutput(written);
            _committed += written;
        }
    }

    protected override Memory<byte> Refill(int sizeHint)
    {
        Commit();
        return Attach(transport.GetOutputMemory(sizeHint));
    }
}
