using System.Buffers;

namespace WebSocketCodec.Tests.Driver;

/// <summary>A port that keeps the output in memory: committed bytes, flushed bytes, and how many commits and flushes
/// it saw. Chunks are <see cref="ChunkSize"/> bytes at most (unless a larger size is asked for), so writes cross
/// chunk boundaries. With <paramref name="keepBytes"/> off it only counts them (for long runs).</summary>
internal sealed class BufferTransport(int chunkSize = 4096, bool keepBytes = true) : IWebSocketTransport
{
    private readonly ArrayBufferWriter<byte> _committed = new();
    private byte[] _chunk = [];
    private long _committedCount;

    public int ChunkSize => chunkSize;

    public int Commits { get; private set; }

    public int Flushes { get; private set; }

    public long FlushedBytes { get; private set; }

    public ReadOnlySpan<byte> Committed => _committed.WrittenSpan;

    public bool CanHalfClose => false;

    public Memory<byte> GetOutputMemory(int sizeHint)
    {
        if (keepBytes || _chunk.Length < Math.Max(sizeHint, chunkSize))
        {
            _chunk = new byte[Math.Max(sizeHint, chunkSize)]; // fresh each time when kept: a write after its commit shows
        }

        return _chunk;
    }

    public void AdvanceOutput(int count)
    {
        Commits++;
        _committedCount += count;
        if (keepBytes)
        {
            _committed.Write(_chunk.AsSpan(0, count));
        }
    }

    /// <summary>When set, the next flush is held until the test completes <see cref="HeldFlush"/> (the bytes count as
    /// flushed when it does).</summary>
    public bool HoldNextFlush { get; set; }

    public TaskCompletionSource<bool>? HeldFlush { get; private set; }

    /// <summary>When set, every flush completes a moment later on a thread-pool thread, racing the sender.</summary>
    public bool FlushOnThreadPool { get; init; }

    public ValueTask<bool> FlushAsync()
    {
        Flushes++;
        long bytes = _committedCount;
        if (FlushOnThreadPool)
        {
            return new ValueTask<bool>(Task.Run(() => { FlushedBytes = bytes; return true; }));
        }

        if (HoldNextFlush)
        {
            HoldNextFlush = false;
            HeldFlush = new TaskCompletionSource<bool>(); // its continuation runs on the thread that completes it
            return new ValueTask<bool>(HeldFlush.Task.ContinueWith(
                done => { FlushedBytes = bytes; return done.Result; }, TaskContinuationOptions.ExecuteSynchronously));
        }

        FlushedBytes = bytes;
        return new ValueTask<bool>(true);
    }

    public void CancelPendingFlush()
    {
    }

    public void OnOutputEnding(long bytes)
    {
    }

    /// <summary>What ending the output does instead of nothing (a host whose close throws, say).</summary>
    public Func<ValueTask>? EndingOutput { get; set; }

    public ValueTask EndOutputAsync(bool halfClose) => EndingOutput?.Invoke() ?? ValueTask.CompletedTask;

    /// <summary>How often the driver tore the transport down.</summary>
    public int Aborts { get; private set; }

    /// <summary>What an abort does besides counting (a host whose abort throws, say).</summary>
    public Action? Aborting { get; set; }

    public void Abort()
    {
        Aborts++;
        Aborting?.Invoke();
    }

    public void PauseReading()
    {
    }

    public void ResumeReading()
    {
    }

    public void StopReading()
    {
    }

    /// <summary>Runs when the driver asks for a turn (by default nothing runs it).</summary>
    public Action? TurnRequested { get; set; }

    /// <summary>Runs when the driver reports its end.</summary>
    public Action<WebSocketCloseInfo>? Ended { get; set; }

    public void ScheduleTurn() => TurnRequested?.Invoke();

    public void OnEnded(WebSocketCloseInfo info) => Ended?.Invoke(info);
}
