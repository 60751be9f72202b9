namespace WebSocketCodec.AspNetCore;

/// <summary>How <see cref="KestrelTuningExtensions.AddKestrelWebSocketTuning"/> sets Kestrel's socket transport up: set
/// it in that call's <c>configure</c> delegate to change the block size, how long free blocks are kept, or inline
/// scheduling.</summary>
public sealed class KestrelWebSocketTuning
{
    /// <summary>The smallest block: Kestrel's own.</summary>
    public const int MinBlockSize = 4 * 1024;

    /// <summary>The largest block.</summary>
    public const int MaxBlockSize = 1024 * 1024;

    /// <summary>
    /// Bytes per memory pool block (default 64 KiB, Kestrel's own is 4 KiB): the most one socket read takes in, and
    /// the largest frame the websocket writes contiguously into Kestrel's output. Blocks are rented only while bytes
    /// are in flight, so the memory it costs follows the busy connections, not the open ones.
    /// </summary>
    public int BlockSize { get; set; } = 64 * 1024;

    /// <summary>How long a free block may stay unused before it is released to the garbage collector (default 10 s;
    /// zero keeps every block).</summary>
    public TimeSpan TrimInterval { get; set; } = TimeSpan.FromSeconds(10);

    /// <summary>
    /// Runs the application's reads and the socket's writes on the socket's I/O thread instead of queuing them to the
    /// thread pool (Kestrel's <c>UnsafePreferInlineScheduling</c>; default off). Fewer thread hops per message, but a
    /// websocket callback that blocks then stalls every connection of its I/O queue: only for listeners that never
    /// block.
    /// </summary>
    public bool InlineScheduling { get; set; }

    internal static void ValidateBlockSize(int blockSize)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(blockSize, MinBlockSize);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(blockSize, MaxBlockSize);
    }
}
