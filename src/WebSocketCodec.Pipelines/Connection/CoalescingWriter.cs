using System.IO.Pipelines;

namespace WebSocketCodec.Pipelines;

/// <summary>
/// Gathers many small writes into the chunk of pipe memory it holds, and commits them to the <see cref="PipeWriter"/>
/// with one <c>Advance</c>. A <see cref="Pipe"/>'s <c>Advance</c> takes a lock (two interlocked operations, a large
/// share of the server's time when every echoed frame made its own), so frames cost a bounds check each and
/// the lock is taken once per chunk. Used under the connection's write lock only; <see cref="Commit"/> runs before every
/// flush and before the output is completed.
/// </summary>
internal sealed class CoalescingWriter(PipeWriter inner) : ChunkWriter
{
    private long _committed;

    /// <summary>The pipe this writes to.</summary>
    public PipeWriter Inner => inner;

    /// <summary>Bytes committed to the pipe so far, in all.</summary>
    public long Committed => _committed;

    /// <summary>Commits what was written to the pipe (before a flush, and before the output completes).</summary>
    public void Commit()
    {
        int written = Detach();
        if (written > 0)
        {
            inner.Advance(written);
            _committed += written;
        }
    }

    protected override Memory<byte> Refill(int sizeHint)
    {
        Commit();
        return Attach(inner.GetMemory(sizeHint));
    }
}
