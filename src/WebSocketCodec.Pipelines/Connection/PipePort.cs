using System.Buffers;
using System.IO.Pipelines;
using System.Runtime.CompilerServices;
using System.Threading.Tasks.Sources;

namespace WebSocketCodec.Pipelines;

/// <summary>
/// The driver's port over an <see cref="IDuplexPipe"/>, and the loop that feeds it: one <c>ReadAsync</c>, every byte
/// handed to the <see cref="WebSocketDriver"/>, one <c>AdvanceTo</c>, the driver's end of the read; frames go straight
/// into the pipe's writer. The driver's turns (timers, an abort, a drained output) interrupt a pending read. A flush the
/// pipe holds back completes through one reusable awaitable (the driver runs one flush at a time): no allocation.
/// </summary>
internal sealed class PipePort : IWebSocketTransport, IValueTaskSource<bool>
{
    private readonly IDuplexPipe _pipe;
    private readonly LoopSignal _wake = new();
    private readonly Action _flushDone;
    private ManualResetValueTaskSourceCore<bool> _flush;
    private ConfiguredValueTaskAwaitable<FlushResult>.ConfiguredValueTaskAwaiter _pendingFlush;
    private int _turn;
    private int _reading; // the loop is in (or about to enter) ReadAsync: a turn must interrupt it
    private volatile bool _paused;
    private bool _stopped;

    public PipePort(IDuplexPipe pipe)
    {
        _pipe = pipe;
        _flushDone = OnFlushDone;
    }

    /// <summary>A plain pipe's completed writer is its end of one direction; a transport that says whether it can end
    /// one direction alone (<see cref="IWebSocketPipeTransport"/>) decides.</summary>
    public bool CanHalfClose => _pipe is not IWebSocketPipeTransport transport || transport.CanHalfClose;

    public Memory<byte> GetOutputMemory(int sizeHint) => _pipe.Output.GetMemory(sizeHint);

    public void AdvanceOutput(int count) => _pipe.Output.Advance(count);

    public ValueTask<bool> FlushAsync()
    {
        ValueTask<FlushResult> flush = _pipe.Output.FlushAsync();
        if (flush.IsCompletedSuccessfully)
        {
            return new ValueTask<bool>(Taken(flush.Result));
        }

        _flush.Reset();
        _pendingFlush = flush.ConfigureAwait(false).GetAwaiter();
        _pendingFlush.UnsafeOnCompleted(_flushDone);
        return new ValueTask<bool>(this, _flush.Version);
    }

    public void CancelPendingFlush() => _pipe.Output.CancelPendingFlush();

    public void OnOutputEnding(long bytes) => (_pipe as IWebSocketPipeTransport)?.OnOutputEnding(bytes);

    public async ValueTask EndOutputAsync(bool halfClose)
    {
        if (halfClose && _pipe is IWebSocketPipeTransport { CanHalfClose: true } transport)
        {
            await transport.CloseOutputAsync().ConfigureAwait(false);
        }
        else
        {
            // A plain pipe's completed writer is its end of our direction.
            await _pipe.Output.CompleteAsync().ConfigureAwait(false);
        }
    }

    public long AcknowledgedBytes => _pipe is IWebSocketPipeTransport transport ? transport.AcknowledgedBytes : -1;

    /// <summary>A transport that can be torn down is; a plain pipe's stuck flush is cancelled by the driver instead.</summary>
    public void Abort() => (_pipe as IWebSocketPipeTransport)?.Abort();

    public void PauseReading() => _paused = true;

    public void ResumeReading()
    {
        _paused = false;
        _wake.Set();
    }

    public void StopReading() => _stopped = true;

    public void ScheduleTurn()
    {
        Interlocked.Exchange(ref _turn, 1);
        _wake.Set();
        if (Volatile.Read(ref _reading) == 0)
        {
            return; // the loop is not in a read: it sees the turn before its next one (no cancelled read to pay for)
        }

        try
        {
            _pipe.Input.CancelPendingRead();
        }
        catch (Exception error) when (error is InvalidOperationException or ObjectDisposedException)
        {
            // The loop completed the input in between: nothing left to interrupt.
        }
    }

    /// <summary>Reads until the driver stops reading, then completes the pipe's reader.</summary>
    public async Task RunAsync(WebSocketDriver driver)
    {
        PipeReader reader = _pipe.Input;
        try
        {
            while (true)
            {
                if (Interlocked.Exchange(ref _turn, 0) != 0)
                {
                    driver.RunTurn();
                }

                if (_stopped)
                {
                    break;
                }

                if (_paused)
                {
                    await _wake.WaitAsync().ConfigureAwait(false); // drained, a timer, an abort, or the output ended
                    continue;
                }

                Interlocked.Exchange(ref _reading, 1);
                if (Volatile.Read(ref _turn) != 0)
                {
                    Volatile.Write(ref _reading, 0); // a turn came in between: it goes first
                    continue;
                }

                ReadResult result = await reader.ReadAsync().ConfigureAwait(false);
                Volatile.Write(ref _reading, 0);
                ReadOnlySequence<byte> buffer = result.Buffer;
                if (result.IsCanceled)
                {
                    reader.AdvanceTo(buffer.Start); // a turn comes first; the bytes are read again after it
                    continue;
                }

                driver.Receive(buffer);
                reader.AdvanceTo(buffer.End);
                if (result.IsCompleted)
                {
                    driver.InputEnded(); // the peer ended its direction (a Close missing is the driver's 1006)
                    break;
                }

                driver.ReadComplete();
            }
        }
        catch (Exception error)
        {
            driver.InputEnded(error); // a transport error, or the one an abort provokes
        }
        finally
        {
            await reader.CompleteAsync().ConfigureAwait(false);
        }
    }

    bool IValueTaskSource<bool>.GetResult(short token) => _flush.GetResult(token);

    ValueTaskSourceStatus IValueTaskSource<bool>.GetStatus(short token) => _flush.GetStatus(token);

    void IValueTaskSource<bool>.OnCompleted(
        Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _flush.OnCompleted(continuation, state, token, flags);

    private static bool Taken(FlushResult result) => !result.IsCanceled && !result.IsCompleted;

    private void OnFlushDone()
    {
        ConfiguredValueTaskAwaitable<FlushResult>.ConfiguredValueTaskAwaiter pending = _pendingFlush;
        _pendingFlush = default;
        bool taken;
        try
        {
            taken = Taken(pending.GetResult());
        }
        catch (Exception error)
        {
            _flush.SetException(error);
            return;
        }

        _flush.SetResult(taken); // the driver's continuation runs here, inline, as the flush completes
    }
}
