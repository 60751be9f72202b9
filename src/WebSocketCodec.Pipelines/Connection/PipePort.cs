using System.Buffers;
using System.IO.Pipelines;
using System.Runtime.CompilerServices;

namespace WebSocketCodec.Pipelines;

/// <summary>
/// The driver's port over an <see cref="IDuplexPipe"/>, and the loop that feeds it: one <c>ReadAsync</c>, every byte
/// handed to the <see cref="WebSocketDriver"/>, one <c>AdvanceTo</c>, the driver's end of the read; frames go straight
/// into the pipe's writer. The driver's turns (timers, an abort, a drained output) interrupt a pending read.
/// </summary>
internal sealed class PipePort(IDuplexPipe pipe) : IWebSocketTransport
{
    private readonly LoopSignal _wake = new();
    private int _turn;
    private volatile bool _paused;
    private bool _stopped;

    /// <summary>How to tear the connection down when the output is stuck (see <see cref="WebSocketConnection.TransportAbort"/>).</summary>
    public Action? TransportAbort { get; set; }

    /// <summary>A plain pipe's completed writer is its end of one direction; a transport that says whether it can end
    /// one direction alone (<see cref="IHalfClosingDuplexPipe"/>) decides.</summary>
    public bool CanHalfClose => pipe is not IHalfClosingDuplexPipe halfClosing || halfClosing.CanHalfClose;

    public Memory<byte> GetOutputMemory(int sizeHint) => pipe.Output.GetMemory(sizeHint);

    public void AdvanceOutput(int count) => pipe.Output.Advance(count);

    public ValueTask<bool> FlushAsync()
    {
        ValueTask<FlushResult> flush = pipe.Output.FlushAsync();
        if (flush.IsCompletedSuccessfully)
        {
            FlushResult result = flush.Result;
            return new ValueTask<bool>(!result.IsCanceled && !result.IsCompleted);
        }

        return AwaitFlushAsync(flush);
    }

    public void CancelPendingFlush() => pipe.Output.CancelPendingFlush();

    public void OnOutputEnding(long bytes) => (pipe as IHalfClosingDuplexPipe)?.OnOutputEnding(bytes);

    public async ValueTask EndOutputAsync(bool halfClose)
    {
        if (halfClose && pipe is IHalfClosingDuplexPipe { CanHalfClose: true } halfClosing)
        {
            await halfClosing.CloseOutputAsync().ConfigureAwait(false);
        }
        else
        {
            // A plain pipe's completed writer is its end of our direction.
            await pipe.Output.CompleteAsync().ConfigureAwait(false);
        }
    }

    public void Abort() => TransportAbort?.Invoke();

    public void PauseReading() => _paused = true;

    public void ResumeReading()
    {
        _paused = false;
        _wake.Set();
    }

    public void StopReading() => _stopped = true;

    public void ScheduleTurn()
    {
        Volatile.Write(ref _turn, 1);
        _wake.Set();
        try
        {
            pipe.Input.CancelPendingRead();
        }
        catch (Exception error) when (error is InvalidOperationException or ObjectDisposedException)
        {
            // The loop completed the input in between: nothing left to interrupt.
        }
    }

    /// <summary>Reads until the driver stops reading, then completes the pipe's reader.</summary>
    public async Task RunAsync(WebSocketDriver driver)
    {
        PipeReader reader = pipe.Input;
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

                ReadResult result = await reader.ReadAsync().ConfigureAwait(false);
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

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private static async ValueTask<bool> AwaitFlushAsync(ValueTask<FlushResult> flush)
    {
        FlushResult result = await flush.ConfigureAwait(false);
        return !result.IsCanceled && !result.IsCompleted;
    }
}
